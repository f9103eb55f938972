package dev.counters.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * CI's seconds-long run of the JPA report's contenders on the test servers: every id generator inserts through
 * Spring Data JPA and every acknowledged insert is stored, the generators measured alone hand out unique ids, and
 * every way of toggling likes ends with the count equal to the member rows; and the toggle check catches a count
 * that drifts from its rows.
 */
class JpaSmokeTest {

    private static final Duration WARMUP = Duration.ofMillis(100);
    private static final Duration DURATION = Duration.ofMillis(300);
    private static final int THREADS = 4;
    private static final List<BenchDatabase> DATABASES = List.of(BenchDatabase.MARIADB, BenchDatabase.POSTGRES);

    static List<Arguments> generatorsOnDatabases() {
        return on(IdGenerator.all().stream().map(IdGenerator::name).toList());
    }

    static List<Arguments> apartOnDatabases() {
        return on(IdGenerator.apart().stream().map(IdGenerator::name).toList());
    }

    static List<Arguments> togglesOnDatabases() {
        return on(ToggleWorkload.all().stream().map(ToggleWorkload.Kind::name).toList());
    }

    private static List<Arguments> on(List<String> names) {
        List<Arguments> all = new ArrayList<>();
        for (BenchDatabase database : DATABASES) {
            names.forEach(name -> all.add(Arguments.of(database, name)));
        }
        return all;
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("generatorsOnDatabases")
    void everyGeneratorInsertsAndEveryAcknowledgedInsertIsStored(BenchDatabase database, String generator)
            throws Exception {
        JpaDriver.Result result = JpaDriver.inserts(database, IdGenerator.named(generator), THREADS, WARMUP, DURATION);

        assertThat(result.errors()).as(result.line()).isZero();
        assertThat(result.operations()).as(result.line()).isPositive();
        assertThat(result.exact()).as(result.line()).isTrue();
        if (IdGenerator.named(generator).fromInsert()) {
            assertThat(result.idShare()).as(result.line()).isNaN();
        } else {
            assertThat(result.idShare()).as(result.line()).isBetween(0.0, 1.0);
        }
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("apartOnDatabases")
    void everyGeneratorAloneHandsOutUniqueIds(BenchDatabase database, String generator) throws Exception {
        JpaDriver.Result result = JpaDriver.ids(database, IdGenerator.named(generator), THREADS, WARMUP, DURATION);

        assertThat(result.errors()).as(result.line()).isZero();
        assertThat(result.operations()).as(result.line()).isPositive();
        assertThat(result.exact()).as(result.line()).isTrue();
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("togglesOnDatabases")
    void everyWayOfTogglingEndsWithTheCountOfItsRows(BenchDatabase database, String kind) throws Exception {
        JpaDriver.Result result = JpaDriver.toggles(database, ToggleWorkload.named(kind), THREADS, WARMUP, DURATION);

        assertThat(result.errors()).as(result.line()).isZero();
        assertThat(result.operations()).as(result.line()).isPositive();
        assertThat(result.exact()).as(result.line()).isTrue();
    }

    @Test
    void theToggleCheckCatchesACountThatDriftsFromItsRows() throws Exception {
        ToggleWorkload.Kind racy = new ToggleWorkload.Kind(
                "racy", "reads the count, then writes it", (dataSource, database) -> new ToggleWorkload() {
                    private final Set<String> rows = new HashSet<>();
                    private long count;

                    @Override
                    public boolean toggle(String user, boolean like) {
                        boolean changed;
                        synchronized (rows) {
                            changed = like ? rows.add(user) : rows.remove(user);
                        }
                        if (changed) {
                            long read = count; // what a read-modify-write of the count column does
                            LockSupport.parkNanos(10_000);
                            count = read + (like ? 1 : -1);
                        }
                        return changed;
                    }

                    @Override
                    public long count() {
                        return count;
                    }

                    @Override
                    public long members() {
                        return rows.size();
                    }

                    @Override
                    public void close() {}
                });

        JpaDriver.Result result = JpaDriver.toggles(BenchDatabase.H2, racy, THREADS, WARMUP, DURATION);

        assertThat(result.exact()).as(result.line()).isFalse();
    }
}
