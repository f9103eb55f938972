package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.NodeIdInUseException;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;
import dev.counters.spi.SessionLocks;
import dev.counters.strategy.NodeSettings;
import dev.counters.testing.TestThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The node id claim as a session lock (issue 13): it lives exactly as long as its database session. A holder whose
 * session ends (killed by the server, a broken connection) takes the lock again if it is free, and stops incrementing
 * if another process took it meanwhile; two live holders never coexist.
 */
class SessionLockTest {

    /** A service whose default strategy is a node counter under {@code id}, its claim checked every second. */
    private static CounterService node(CounterStore store, String id) {
        return node(store, id, Duration.ofSeconds(3));
    }

    /** The same, its claim checked every third of {@code leaseTtl}. */
    private static CounterService node(CounterStore store, String id, Duration leaseTtl) {
        return CounterService.builder(store)
                .defaultStrategy(NodeSettings.defaults().withNodeId(id).withLeaseTtl(leaseTtl))
                .build();
    }

    /** The sessions holding the node id's lock: one, or none. */
    private static List<Long> holders(Connection admin, TestDatabase database, String prefix, String nodeId)
            throws SQLException {
        String key = "node:" + nodeId;
        if (database == TestDatabase.MARIADB) {
            try (PreparedStatement holder = admin.prepareStatement("SELECT IS_USED_LOCK(?)")) {
                holder.setString(1, DatabaseSessionLocks.mysqlLockName(admin.getCatalog(), prefix, key));
                return longs(holder);
            }
        }
        long lock = DatabaseSessionLocks.postgresLockKey(admin.getCatalog(), prefix, key);
        try (PreparedStatement holder = admin.prepareStatement("SELECT pid FROM pg_locks WHERE locktype = 'advisory'"
                + " AND granted AND classid::bigint = ? AND objid::bigint = ? AND objsubid = 1")) {
            holder.setLong(1, lock >>> 32);
            holder.setLong(2, lock & 0xFFFF_FFFFL);
            return longs(holder);
        }
    }

    /**
     * Ends the database session that holds the node id's lock, as a DBA's KILL or a broken connection would, and waits
     * until that session no longer holds it (both return before the session is gone).
     */
    private static void killSessionHolding(TestDatabase database, String prefix, String nodeId) throws SQLException {
        try (Connection admin = database.dataSource().getConnection()) {
            List<Long> sessions = holders(admin, database, prefix, nodeId);
            assertThat(sessions).as("the session holding the lock").hasSize(1);
            long killed = sessions.get(0);
            admin.createStatement()
                    .execute(
                            database == TestDatabase.MARIADB
                                    ? "KILL " + killed
                                    : "SELECT pg_terminate_backend(" + killed + ")");
            await().atMost(Duration.ofSeconds(10))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> !holders(admin, database, prefix, nodeId).contains(killed));
        }
    }

    private static List<Long> longs(PreparedStatement query) throws SQLException {
        List<Long> values = new ArrayList<>();
        try (ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                long value = rows.getLong(1);
                if (!rows.wasNull()) {
                    values.add(value);
                }
            }
        }
        return values;
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"MARIADB", "POSTGRES"})
    void aHolderWhoseSessionEndedStopsOnceAnotherProcessTookItsId(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.on(database);
        String id = "lost-" + UUID.randomUUID().toString().substring(0, 8);
        // The holder first checks its claim 10 s after it starts: the successor surely comes first.
        try (CounterService holder = node(stores.store(), id, Duration.ofSeconds(30))) {
            holder.increment("x");
            killSessionHolding(database, stores.prefix(), id);
            try (CounterService successor = node(stores.anotherStore(), id)) {
                successor.increment("x");
                await().atMost(Duration.ofSeconds(20))
                        .untilAsserted(() -> assertThatThrownBy(() -> holder.increment("probe"))
                                .isInstanceOf(NodeIdInUseException.class)
                                .hasMessageContaining("was claimed by another process"));
                successor.increment("x");
                assertThat(successor.get("x")).isEqualTo(3);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"MARIADB", "POSTGRES"})
    void aHolderWhoseSessionEndedTakesItsIdAgainWhenNobodyElseDid(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.on(database);
        String id = "again-" + UUID.randomUUID().toString().substring(0, 8);
        try (CounterService holder = node(stores.store(), id)) {
            killSessionHolding(database, stores.prefix(), id);
            // Within a check period the holder sits on a new session, which a second process cannot take from it.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                try (Connection admin = database.dataSource().getConnection()) {
                    assertThat(holders(admin, database, stores.prefix(), id)).hasSize(1);
                }
                assertThatThrownBy(() -> node(stores.anotherStore(), id)).isInstanceOf(NodeIdInUseException.class);
            });
            holder.increment("y");
            assertThat(holder.get("y")).isEqualTo(1);
        }
    }

    /**
     * A bounded strategy's sweep holds a dead node's claim for a moment while it gives back its allowance: a process
     * restarting under that id then waits for it, and starts.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"MARIADB", "POSTGRES"})
    void aProcessStartingWhileItsIdIsBrieflyHeldWaitsAndStarts(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.on(database);
        String id = "brief-" + UUID.randomUUID().toString().substring(0, 8);
        SessionLocks.SessionLock sweeper = stores.anotherStore()
                .capability(SessionLocks.class)
                .orElseThrow()
                .tryLock("node:" + id)
                .orElseThrow();
        Thread release = TestThreads.start(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            sweeper.close();
        });
        try (CounterService restarted = node(stores.store(), id)) {
            restarted.increment("z");
            assertThat(restarted.get("z")).isEqualTo(1);
        } finally {
            release.join();
        }
    }

    @Test
    void aLockSessionFromAPoolWithoutAutocommitHoldsNoTransactionOpen() throws Exception {
        // An open transaction held for the lock's lifetime would keep PostgreSQL's VACUUM from cleaning up behind it.
        TestDatabase database = TestDatabase.POSTGRES;
        JooqStores stores = JooqStores.on(database);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.user());
        config.setPassword(database.password());
        config.setAutoCommit(false);
        String id = "tx-" + UUID.randomUUID().toString().substring(0, 8);
        try (HikariDataSource noAutocommit = new HikariDataSource(config);
                CounterService holder = node(
                        JooqCounterStore.builder(noAutocommit)
                                .tablePrefix(stores.prefix())
                                .build(),
                        id);
                Connection admin = database.dataSource().getConnection();
                PreparedStatement state = admin.prepareStatement("SELECT state FROM pg_stat_activity WHERE pid = ?")) {
            holder.increment("z");
            state.setLong(1, holders(admin, database, stores.prefix(), id).get(0));
            try (ResultSet row = state.executeQuery()) {
                assertThat(row.next()).isTrue();
                assertThat(row.getString(1)).isEqualTo("idle");
            }
        }
    }

    @Test
    void h2HasNoSessionLocksAndKeepsTheLease() {
        assertThat(JooqStores.shared(TestDatabase.H2).store().capability(SessionLocks.class))
                .isEmpty();
        assertThat(JooqStores.shared(TestDatabase.MARIADB).store().capability(SessionLocks.class))
                .isPresent();
        assertThat(JooqStores.shared(TestDatabase.POSTGRES).store().capability(SessionLocks.class))
                .isPresent();
    }
}
