package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.CountersException;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.strategy.DeltaLogSettings;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 31, item 11: an append the server holds (here behind a table lock another session holds) must end before the
 * tombstone of its delta could be purged. Otherwise it can insert the delta after a retry was acknowledged, folded
 * and purged: counted twice. The store cancels the statement after {@link DeltaQueries#APPEND_TIMEOUT_SECONDS}, an
 * unknown outcome, so the last attempt, started within half the retention, ends before the retention is over.
 */
class DeltaLogHeldAppendTest {

    private static final Duration RETENTION = Duration.ofSeconds(12);

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"MARIADB", "POSTGRES"})
    void anAppendTheServerHoldsEndsBeforeItsTombstoneCouldBePurged(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.shared(database);
        // Two attempts: the second starts after the first was cancelled, within the retry window (half the retention).
        DeltaLogSettings settings = new DeltaLogSettings(Duration.ofMinutes(10), 1_000_000, false, 2, RETENTION);
        String name = "held.append." + System.nanoTime();
        String table = stores.prefix() + "counter_deltas";
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (CounterService counters = CounterService.builder(stores.store())
                        .defaultStrategy(settings)
                        .build();
                HikariDataSource other = database.newDataSource(1);
                Connection holder = other.getConnection()) {
            counters.increment(name, 1);
            lock(database, holder, table);
            long started = System.nanoTime();
            Future<Throwable> held = caller.submit(() -> {
                try {
                    counters.increment(name, 100);
                    return null;
                } catch (RuntimeException e) {
                    return e;
                }
            });
            Throwable failure;
            try {
                failure = held.get(RETENTION.toMillis(), TimeUnit.MILLISECONDS);
            } finally {
                unlock(database, holder);
            }
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            System.out.printf(
                    "delta-log append held on %s: failed after %d ms: %s%n", database, took.toMillis(), failure);

            assertThat(failure)
                    .as("the held append's failure")
                    .isInstanceOfSatisfying(
                            CountersException.class,
                            e -> assertThat(e.mayHaveBeenApplied())
                                    .as("a cancelled statement's outcome is unknown")
                                    .isTrue());
            assertThat(took)
                    .as("both attempts over before the tombstone could be purged")
                    .isLessThan(RETENTION)
                    .isGreaterThanOrEqualTo(Duration.ofSeconds(2L * DeltaQueries.APPEND_TIMEOUT_SECONDS));
            // The cancelled statements wrote nothing, and nothing of them runs once the lock is gone.
            counters.increment(name, 10);
            assertThat(counters.getExact(name)).isEqualTo(11);
        } finally {
            caller.shutdownNow();
        }
        assertThat(JooqStores.total(stores.store(), name)).isEqualTo(11);
    }

    /** Another session takes the delta table, as a migration's DDL or a backup lock would: inserts wait for it. */
    private static void lock(TestDatabase database, Connection holder, String table) throws SQLException {
        try (Statement statement = holder.createStatement()) {
            if (database == TestDatabase.MARIADB) {
                statement.execute("LOCK TABLES " + table + " WRITE");
            } else {
                holder.setAutoCommit(false);
                statement.execute("LOCK TABLE " + table + " IN ACCESS EXCLUSIVE MODE");
            }
        }
    }

    private static void unlock(TestDatabase database, Connection holder) throws SQLException {
        if (database == TestDatabase.MARIADB) {
            try (Statement statement = holder.createStatement()) {
                statement.execute("UNLOCK TABLES");
            }
        } else {
            holder.rollback();
            holder.setAutoCommit(true);
        }
    }
}
