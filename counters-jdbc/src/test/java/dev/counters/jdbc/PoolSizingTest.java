package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.StoreUnavailableException;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.strategy.NodeSettings;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a store takes from its pool: a connection per node id claimed with a session lock, for as long as the claim;
 * and a pool those claims fill fails each write when its timeout ends, saying so and naming the pool.
 */
class PoolSizingTest {

    private static CounterService node(JooqCounterStore store, String nodeId) {
        return CounterService.builder(store)
                .defaultStrategy(NodeSettings.defaults().withNodeId(nodeId))
                .build();
    }

    private static String nodeId() {
        return "pool-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"MARIADB", "POSTGRES"})
    @SuppressWarnings("try") // the services are held for their claims
    void eachNodeIdClaimedKeepsOneConnectionUntilItsServiceCloses(TestDatabase database) {
        JooqStores stores = JooqStores.on(database);
        JooqCounterStore store = stores.store();
        try (CounterService first = node(store, nodeId())) {
            assertThat(store.sessionLockConnections()).isEqualTo(1);
            try (CounterService second = node(store, nodeId())) {
                assertThat(store.sessionLockConnections()).isEqualTo(2);
            }
            assertThat(store.sessionLockConnections()).isEqualTo(1);
        }
        assertThat(store.sessionLockConnections()).isZero();
    }

    @Test
    void aClaimOnH2IsALeaseThatKeepsNoConnection() {
        JooqCounterStore store = JooqStores.on(TestDatabase.H2).store();
        try (CounterService counters = node(store, nodeId())) {
            counters.increment("x");
            assertThat(store.sessionLockConnections()).isZero();
        }
    }

    @Test
    @SuppressWarnings("try") // the services are held for their claims
    void aClaimThatWouldFillAPoolOfKnownSizeIsRefusedAtOnce() {
        String prefix = JooqStores.shared(TestDatabase.POSTGRES).prefix();
        try (HikariDataSource one = TestDatabase.POSTGRES.newDataSource(1);
                HikariDataSource three = TestDatabase.POSTGRES.newDataSource(3)) {
            JooqCounterStore store = JooqCounterStore.builder(one)
                    .tablePrefix(prefix)
                    .poolSize(1)
                    .build();
            assertThatThrownBy(() -> node(store, nodeId()).close())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("would leave the connection pool HikariDataSource (counters-test-postgres) "
                            + "no connection for the writes: it has at most 1")
                    .hasMessageContaining("at least 2");
            JooqCounterStore roomy = JooqCounterStore.builder(three)
                    .tablePrefix(prefix)
                    .poolSize(3)
                    .build();
            try (CounterService counters = node(roomy, nodeId());
                    CounterService other = node(roomy, nodeId())) {
                counters.increment("x");
                assertThat(counters.get("x")).isEqualTo(1);
                assertThatThrownBy(() -> node(roomy, nodeId()).close())
                        .as("a third claim")
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("at least 4");
            }
        }
    }

    @Test
    void aPoolTheClaimFillsFailsAtItsTimeoutNamingThePoolAndWhy() {
        String prefix = JooqStores.shared(TestDatabase.MARIADB).prefix();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(TestDatabase.MARIADB.jdbcUrl());
        config.setUsername(TestDatabase.MARIADB.user());
        config.setMaximumPoolSize(1);
        config.setConnectionTimeout(250);
        config.setPoolName("counters-test-mariadb");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JooqCounterStore store =
                    JooqCounterStore.builder(pool).tablePrefix(prefix).build();
            // The claim takes the only connection; the node rule's first read of the store then waits for the pool.
            assertThatThrownBy(() -> node(store, nodeId()))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("counters-test-mariadb - Connection is not available, request timed out")
                    .hasMessageContaining("one pooled connection per node id a node rule claims")
                    .hasMessageContaining("Connection pool sizing");
            assertThat(store.sessionLockConnections()).as("the claim released").isZero();
        }
    }
}
