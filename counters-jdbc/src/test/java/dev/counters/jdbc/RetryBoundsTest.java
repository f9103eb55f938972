package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.TransientStoreException;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.jdbc.testing.FaultInjectingDataSource;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.Strategies;
import dev.counters.strategy.StrategyFactory;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Retries happen in one layer: the most statements one increment can send when every attempt fails is bounded by the
 * configured attempts, not by a product of nested retries. Counted at the JDBC driver, on a real database.
 */
class RetryBoundsTest {

    private static final TestDatabase DATABASE = TestDatabase.H2;
    private static final int ATTEMPTS = 4;

    static Stream<Arguments> strategies() {
        Duration tiny = Duration.ofMillis(1);
        return Stream.of(
                Arguments.of("atomic", Strategies.atomic()),
                Arguments.of("sharded", Strategies.sharded()),
                Arguments.of("node", Strategies.node()),
                Arguments.of("optimistic", Strategies.optimistic(new OptimisticSettings(ATTEMPTS, tiny, tiny))),
                Arguments.of("delta-log", Strategies.deltaLog(DeltaLogSettings.defaults().withAppendAttempts(ATTEMPTS))));
    }

    /**
     * Every statement is a deadlock victim. The strategy's own retry repeats the increment; the store tries each call
     * once. Before, the store retried 10 times inside each of the strategy's attempts.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void permanentRollbacksSendAtMostOneStatementPerConfiguredAttempt(String strategy, StrategyFactory factory) {
        JooqStores stores = JooqStores.shared(DATABASE);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        JooqCounterStore store = JooqCounterStore.builder(faulty).tablePrefix(stores.prefix()).build();
        // The application's registry configures the strategies that retry through the default policy.
        RetryRegistry registry = RetryRegistry.ofDefaults();
        RetryConfig quick = RetryConfig.custom().maxAttempts(ATTEMPTS).waitDuration(Duration.ofMillis(1))
                .retryExceptions(TransientStoreException.class).build();
        registry.retry("counters-" + strategy, quick);
        try (CounterService counters = CounterService.builder(store).retryRegistry(registry)
                .defaultStrategy(factory).build()) {
            faulty.deadlocks = true;
            long before = faulty.statements.get();
            assertThatThrownBy(() -> counters.increment("bounded." + strategy, 1))
                    .isInstanceOf(TransientStoreException.class);
            assertThat(faulty.statements.get() - before).as("statements sent by one increment")
                    .isBetween(1L, (long) ATTEMPTS);
            faulty.deadlocks = false;
        }
    }

    /**
     * Every compare-and-set loses to another writer. Each attempt reads once and writes once, and conflicts and
     * failures share one budget of attempts.
     */
    @Test
    void permanentConflictsSendAtMostTwoStatementsPerConfiguredAttempt() {
        JooqStores stores = JooqStores.shared(DATABASE);
        FaultInjectingDataSource counted = new FaultInjectingDataSource(DATABASE.dataSource());
        JooqCounterStore store = JooqCounterStore.builder(counted).tablePrefix(stores.prefix()).build();
        CounterName name = CounterName.of("conflicted" + System.nanoTime());
        CounterStore interfering = new ForwardingCounterStore(store) {
            @Override
            public Optional<VersionedValue> read(CounterName counter, String cell) {
                Optional<VersionedValue> seen = super.read(counter, cell);
                stores.store().add(counter, cell, 1); // another writer, on another connection: not counted
                return seen;
            }
        };
        Duration tiny = Duration.ofMillis(1);
        try (CounterService counters = CounterService.builder(interfering)
                .defaultStrategy(Strategies.optimistic(new OptimisticSettings(ATTEMPTS, tiny, tiny))).build()) {
            long before = counted.statements.get();
            assertThatThrownBy(() -> counters.increment(name.value(), 1))
                    .isInstanceOf(CounterContentionException.class);
            assertThat(counted.statements.get() - before).as("statements sent by one increment")
                    .isEqualTo(2L * ATTEMPTS);
        }
        assertThat(stores.store().get(name)).as("only the other writer's").isEqualTo(ATTEMPTS);
    }
}
