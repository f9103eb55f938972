package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.NodeIdInUseException;
import dev.counters.jdbc.testing.PgBouncer;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.SequenceService;
import dev.counters.spi.SessionLocks;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Counters behind a real PgBouncer in transaction pooling mode (its own process, in front of the embedded PostgreSQL):
 * there a client connection has no server session of its own between transactions, so a session advisory lock would
 * stay with a server connection that other clients then get, and take again at once. The store sees the pooling and
 * claims node ids with leases instead; the strategies count exactly through it.
 */
class PgBouncerTest {

    private static final int THREADS = 4;
    private static final int INCREMENTS = 50;

    private static PgBouncer bouncer;
    private static HikariDataSource pool;
    private static HikariDataSource otherPool;
    private static String prefix;

    @BeforeAll
    static void start() {
        bouncer = PgBouncer.transactionMode(4);
        // prepareThreshold=0: no named server-side statements, which PgBouncer before 1.21 cannot follow across servers
        pool = bouncer.newDataSource(8, "prepareThreshold=0");
        otherPool = bouncer.newDataSource(4, "prepareThreshold=0");
        prefix = "b" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        JooqCounterStore.builder(TestDatabase.POSTGRES.dataSource())
                .tablePrefix(prefix)
                .migrateSchema(true)
                .build();
    }

    @AfterAll
    static void stop() {
        pool.close();
        otherPool.close();
        bouncer.close();
    }

    private static JooqCounterStore store(HikariDataSource dataSource) {
        return JooqCounterStore.builder(dataSource).tablePrefix(prefix).build();
    }

    private static CounterService node(JooqCounterStore store, String nodeId) {
        return CounterService.builder(store)
                .defaultStrategy(NodeSettings.defaults().withNodeId(nodeId))
                .build();
    }

    @Test
    void seesThatPgBouncerSharesServerSessionsAndADirectConnectionDoesNot() {
        assertThat(store(pool).capability(SessionLocks.class))
                .as("through PgBouncer")
                .isEmpty();
        assertThat(JooqCounterStore.builder(TestDatabase.POSTGRES.dataSource())
                        .tablePrefix(prefix)
                        .build()
                        .capability(SessionLocks.class))
                .as("direct")
                .isPresent();
    }

    @Test
    void twoProcessesNeverBothClaimANodeIdThroughPgBouncer() {
        String nodeId = "bouncer-" + UUID.randomUUID().toString().substring(0, 8);
        JooqCounterStore store = store(pool);
        try (CounterService holder = node(store, nodeId)) {
            holder.increment("claimed");
            assertThat(store.sessionLockConnections())
                    .as("a lease keeps no connection")
                    .isZero();
            assertThatThrownBy(() -> node(store(otherPool), nodeId)).isInstanceOf(NodeIdInUseException.class);
            assertThatThrownBy(() -> node(store(pool), nodeId))
                    .as("from another service on the same pool")
                    .isInstanceOf(NodeIdInUseException.class);
            holder.increment("claimed");
            assertThat(holder.get("claimed")).isEqualTo(2);
        }
    }

    @Test
    void everyStrategyCountsExactlyThroughPgBouncer() throws Exception {
        Map<String, StrategySettings> strategies = Map.of(
                "atomic", AtomicSettings.defaults(),
                "optimistic", OptimisticSettings.defaults(),
                "sharded", ShardedSettings.defaults(),
                "node",
                        NodeSettings.defaults()
                                .withNodeId("bouncer-"
                                        + UUID.randomUUID().toString().substring(0, 8)),
                "buffered", BufferedSettings.defaults(),
                "delta-log", DeltaLogSettings.defaults());
        var builder = CounterService.builder(store(pool));
        strategies.forEach((name, strategy) -> builder.strategy(name + ".*", strategy));
        String run = UUID.randomUUID().toString().substring(0, 8);
        try (CounterService counters = builder.build()) {
            inThreads(() -> {
                for (int i = 0; i < INCREMENTS; i++) {
                    for (String strategy : strategies.keySet()) {
                        counters.increment(strategy + "." + run);
                    }
                }
                return null;
            });
            counters.flush().join();
            for (String strategy : strategies.keySet()) {
                assertThat(counters.get(strategy + "." + run)).as(strategy).isEqualTo((long) THREADS * INCREMENTS);
            }
        }
    }

    @Test
    void sequenceNumbersAreHandedOutOnceThroughPgBouncer() throws Exception {
        try (SequenceService sequences = SequenceService.builder(store(pool)).build()) {
            String name = "bouncer-" + UUID.randomUUID().toString().substring(0, 8);
            List<Long> drawn = inThreads(() -> {
                List<Long> mine = new ArrayList<>();
                for (int i = 0; i < INCREMENTS; i++) {
                    mine.add(sequences.next(name));
                }
                return mine;
            });
            Set<Long> distinct = new HashSet<>(drawn);
            assertThat(distinct).hasSize(THREADS * INCREMENTS);
        }
    }

    @Test
    @SuppressWarnings("try") // the first connection is held so that the other is a second one
    void serverSidePreparedStatementsThroughPgBouncerBefore121FailSayingWhatToSet() throws Exception {
        // Debian's PgBouncer 1.18 cannot follow pgjdbc's named statements (made after prepareThreshold=5 uses of a
        // query on a connection) from one client to another on the same server session. One server connection, so
        // that the two clients share it (with four, the second client's statements may land on another one).
        try (PgBouncer single = PgBouncer.transactionMode(1);
                HikariDataSource prepared = single.newDataSource(2, "");
                CounterService counters =
                        CounterService.builder(store(prepared)).build()) {
            String name = "prepared-" + UUID.randomUUID();
            for (int i = 0; i < 10; i++) {
                counters.increment(name); // on one pooled connection, whose statements are named now
            }
            try (Connection first = prepared.getConnection()) { // that one (HikariCP gives a thread its last)
                // The other client connection names its statements alike, on the server session the first left them on.
                assertThatThrownBy(() -> {
                            for (int i = 0; i < 10; i++) {
                                counters.increment(name);
                            }
                        })
                        .isInstanceOf(CounterStoreException.class)
                        .hasMessageContaining("prepared statement")
                        .hasMessageContaining("add prepareThreshold=0 to the JDBC URL");
            }
        }
    }

    /** Runs {@code work} in {@link #THREADS} threads at once; their results, together. */
    private static <T> List<T> inThreads(Callable<? extends Iterable<T>> work) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<? extends Iterable<T>>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                futures.add(threads.submit(work));
            }
            List<T> results = new ArrayList<>();
            for (Future<? extends Iterable<T>> future : futures) {
                Iterable<T> result = future.get();
                if (result != null) {
                    result.forEach(results::add);
                }
            }
            return results;
        } finally {
            threads.shutdownNow();
        }
    }
}
