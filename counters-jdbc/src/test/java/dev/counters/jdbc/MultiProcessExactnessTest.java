package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.contract.Concurrently;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.testing.ChildJvm;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Two JVM processes increment the same counter in the same database at the same time, with each exact strategy:
 * the total is exact.
 */
class MultiProcessExactnessTest {

    private static final int THREADS = 8;
    private static final int PER_THREAD = 2_500;

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(TestDatabase.MARIADB, "atomic"),
                Arguments.of(TestDatabase.MARIADB, "optimistic"),
                Arguments.of(TestDatabase.MARIADB, "sharded"),
                Arguments.of(TestDatabase.MARIADB, "node"),
                Arguments.of(TestDatabase.POSTGRES, "atomic"));
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("cases")
    void twoProcessesOnOneCounterAreExact(TestDatabase database, String strategy) throws Exception {
        JooqStores stores = JooqStores.on(database);
        String counter = "shared.hot";
        ChildJvm child = ChildJvm.start(
                ChildIncrementer.class,
                database.jdbcUrl(),
                database.user(),
                database.password(),
                stores.prefix(),
                counter,
                String.valueOf(THREADS),
                String.valueOf(PER_THREAD),
                strategy);
        try (CounterService counters = CounterService.builder(stores.store())
                .defaultStrategy(ChildIncrementer.strategy(strategy))
                .build()) {
            child.awaitOutput("READY", 2, TimeUnit.MINUTES); // so that both processes really run at once
            AtomicLong acknowledged = new AtomicLong();
            AtomicLong refused = new AtomicLong();
            Concurrently.run(
                    THREADS,
                    thread -> ChildIncrementer.incrementCounting(counters, counter, PER_THREAD, acknowledged, refused));
            Matcher printed = Pattern.compile("ACKNOWLEDGED (\\d+) REFUSED (\\d+)")
                    .matcher(child.awaitSuccess(5, TimeUnit.MINUTES));
            assertThat(printed.find()).isTrue();
            long childAcknowledged = Long.parseLong(printed.group(1));
            long childRefused = Long.parseLong(printed.group(2));
            // Every increment was either acknowledged or refused (optimistic contention: nothing written) ...
            assertThat(childAcknowledged + childRefused).isEqualTo(THREADS * PER_THREAD);
            assertThat(acknowledged.get() + refused.get()).isEqualTo(THREADS * PER_THREAD);
            if (!strategy.equals("optimistic")) {
                assertThat(refused.get() + childRefused).isZero();
            }
            // ... and the stored total is exactly the acknowledged ones of both processes.
            assertThat(counters.get(counter)).isEqualTo(acknowledged.get() + childAcknowledged);
            System.out.printf(
                    "%s on %s: %d acknowledged, %d refused for contention%n",
                    strategy, database, acknowledged.get() + childAcknowledged, refused.get() + childRefused);
        }
    }

    static Stream<Arguments> keyedCases() {
        return Stream.of(
                Arguments.of(TestDatabase.MARIADB, "atomic"),
                Arguments.of(TestDatabase.MARIADB, "optimistic"),
                Arguments.of(TestDatabase.MARIADB, "sharded"),
                Arguments.of(TestDatabase.MARIADB, "node"),
                Arguments.of(TestDatabase.MARIADB, "delta-log"),
                Arguments.of(TestDatabase.MARIADB, "buffered"),
                Arguments.of(TestDatabase.POSTGRES, "atomic"),
                Arguments.of(TestDatabase.POSTGRES, "buffered"));
    }

    /** Both processes send every key at the same time (a request retried against another instance): each counts once. */
    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("keyedCases")
    void twoProcessesSendingTheSameKeysCountEachKeyOnce(TestDatabase database, String strategy) throws Exception {
        JooqStores stores = JooqStores.on(database);
        String counter = "shared.keyed";
        int perThread = 300;
        ChildJvm child = ChildJvm.start(
                ChildIncrementer.class,
                database.jdbcUrl(),
                database.user(),
                database.password(),
                stores.prefix(),
                counter,
                String.valueOf(THREADS),
                String.valueOf(perThread),
                strategy,
                "keyed");
        try (CounterService counters = CounterService.builder(stores.store())
                .defaultStrategy(ChildIncrementer.strategy(strategy))
                .build()) {
            child.awaitOutput("READY", 2, TimeUnit.MINUTES);
            AtomicLong acknowledged = new AtomicLong();
            Concurrently.run(
                    THREADS,
                    thread -> ChildIncrementer.incrementKeyed(counters, counter, thread, perThread, acknowledged));
            child.awaitSuccess(5, TimeUnit.MINUTES); // closed: a buffered child flushed what it held
            counters.flush().join();
            assertThat(acknowledged.get()).isEqualTo((long) THREADS * perThread);
            assertThat(counters.getExact(counter))
                    .as("each key once, though both processes sent it")
                    .isEqualTo((long) THREADS * perThread);
        }
    }
}
