package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.jdbc.testing.FaultInjectingDataSource;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;
import dev.counters.spi.IdempotentBatches;
import java.sql.Connection;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 38: a buffered flush's round trips are what a durable caller waits for. On PostgreSQL and MariaDB a batch
 * without callers' keys is one statement that commits on its own (a data-modifying WITH, an anonymous block); on H2, in
 * process, a transaction of the key's insert and one upsert. Applied exactly once either way.
 */
class BatchRoundTripsTest {

    /**
     * Batches of one counter, of a few and of more than the statements rendered once per number of rows hold, each
     * size twice under different keys and deltas: the second of a size runs the statement the first rendered, with
     * its own values.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aFlushOfSeveralCountersIsOneStatementOnPostgreSqlAndMariaDbAndOneTransactionOnH2(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        String prefix = "trips" + System.nanoTime();
        FaultInjectingDataSource counting = new FaultInjectingDataSource(database.dataSource());
        JooqCounterStore store =
                JooqCounterStore.builder(counting).tablePrefix(stores.prefix()).build();
        store.get(CounterName.of(prefix + "a")); // its first connection: what the store asks of the database once
        Map<CounterName, Long> expected = new HashMap<>();
        for (int counters : new int[] {1, 3, CellQueries.RENDERED_ROWS + 1}) {
            for (int round = 1; round <= 2; round++) {
                Map<CounterName, Long> deltas = new HashMap<>();
                for (int i = 0; i < counters; i++) {
                    // Negative deltas too; each size's counters are its own.
                    deltas.put(
                            CounterName.of(prefix + "." + counters + "." + i), (i % 2 == 0 ? 1L : -1L) * (i + round));
                }
                String key = prefix + "-" + counters + "-" + round;
                applyInOneStatement(database, counting, store, key, deltas);
                deltas.forEach((name, delta) -> expected.merge(name, delta, Long::sum));
            }
        }
        assertThat(stores.store().getAll(List.copyOf(expected.keySet()))).containsExactlyInAnyOrderEntriesOf(expected);
    }

    private static void applyInOneStatement(
            TestDatabase database,
            FaultInjectingDataSource counting,
            JooqCounterStore store,
            String key,
            Map<CounterName, Long> deltas) {
        counting.statements.set(0);
        counting.commits.set(0);
        Instant now = Instant.parse("2026-11-26T00:00:00Z");
        assertThat(store.applyBatch(key, "main.1", deltas, Map.of(), now).applied())
                .isTrue();
        if (database != TestDatabase.H2) {
            assertThat(counting.statements.get())
                    .as("the key and the cells in one statement")
                    .isEqualTo(1);
            assertThat(counting.commits.get()).as("auto-committed").isZero();
        } else {
            assertThat(counting.statements.get())
                    .as("the key's insert, the cells' upsert")
                    .isEqualTo(2);
            assertThat(counting.commits.get()).isEqualTo(1);
        }
        assertThat(store.applyBatch(key, "main.1", deltas, Map.of(), now).applied())
                .as("the same key again: nothing written")
                .isFalse();
    }

    /**
     * A batch applied through a store bound to the caller's transaction stays in it: rolled back with it. On MariaDB
     * the one-statement flush would have committed the caller's transaction and the batch with it.
     */
    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aBatchInTheCallersTransactionIsRolledBackWithIt(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.shared(database);
        CounterName counter = CounterName.of("joined" + System.nanoTime());
        ThreadLocal<Connection> current = new ThreadLocal<>();
        JooqCounterStore store = JooqCounterStore.builder(database.dataSource())
                .tablePrefix(stores.prefix())
                .callerTransactions(current::get)
                .build();
        try (Connection connection = database.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            current.set(connection);
            try {
                CounterStore joined = store.callerTransaction().orElseThrow();
                assertThat(joined.capability(IdempotentBatches.class)
                                .orElseThrow()
                                .applyBatch(counter + "-key", "main", Map.of(counter, 5L), Map.of(), Instant.now())
                                .applied())
                        .isTrue();
                connection.rollback();
            } finally {
                current.remove();
                connection.setAutoCommit(true);
            }
        }
        assertThat(stores.store().getAll(List.of(counter)).getOrDefault(counter, 0L))
                .as("rolled back with the caller's transaction")
                .isZero();
    }
}
