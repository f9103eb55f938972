package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.SequenceService;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.ShardedSettings;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Issue 31, item 5, without Spring Boot: a store built on Spring's {@code TransactionAwareDataSourceProxy} keeps its
 * own writes (a block of numbers, a sharded increment, a monotonic maximum) out of the caller's transaction, which
 * then rolls back. Nothing is handed out twice, nothing acknowledged is lost.
 */
class TransactionAwareDataSourceTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void theLibrarysOwnWritesOutliveTheCallersRollback(TestDatabase database) {
        String prefix = JooqStores.on(database).prefix();
        DataSource transactionAware = new TransactionAwareDataSourceProxy(database.dataSource());
        TransactionTemplate transactions =
                new TransactionTemplate(new DataSourceTransactionManager(database.dataSource()));
        JooqCounterStore store =
                JooqCounterStore.builder(transactionAware).tablePrefix(prefix).build();
        AtomicLong ticket = new AtomicLong();
        AtomicLong highest = new AtomicLong();
        try (SequenceService sequences = SequenceService.builder(store).build();
                CounterService counters = CounterService.builder(store)
                        .strategy("views.*", ShardedSettings.defaults())
                        .strategy("ids.*", MonotonicSettings.defaults().withChanceToWrite(1.0))
                        .build()) {
            assertThatThrownBy(() -> transactions.executeWithoutResult(status -> {
                        ticket.set(sequences.next("tickets"));
                        counters.increment("views.home");
                        for (int i = 0; i < 5; i++) {
                            highest.set(counters.incrementAndGet("ids.orders", 1));
                        }
                        throw new IllegalStateException("the caller fails");
                    }))
                    .hasMessage("the caller fails");
        }
        // A restart: a block above every number handed out, a monotonic value above every value handed out.
        try (SequenceService sequences = SequenceService.builder(store).build();
                CounterService counters = CounterService.builder(store)
                        .strategy("ids.*", MonotonicSettings.defaults().withChanceToWrite(1.0))
                        .build()) {
            assertThat(sequences.next("tickets")).isGreaterThan(ticket.get());
            assertThat(counters.incrementAndGet("ids.orders", 1)).isGreaterThan(highest.get());
            assertThat(counters.getExact("views.home"))
                    .as("the acknowledged increment")
                    .isEqualTo(1);
        }
    }

    @Test
    void aTransactionAwareProxyOutOfReachIsRefusedAtBuild() {
        DataSource hidden = new DelegatingDataSource(new TransactionAwareDataSourceProxy(TestDatabase.H2.dataSource()));
        assertThatThrownBy(() -> JooqCounterStore.builder(hidden).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wraps a Spring TransactionAwareDataSourceProxy")
                .hasMessageContaining("Build the store on the DataSource under the proxy");
    }
}
