package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.Counter;
import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.IdempotencyKey;
import dev.counters.TransientStoreException;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.jdbc.testing.FaultInjectingDataSource;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.spi.CounterStore;
import dev.counters.spi.MonotonicCache;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.Strategies;
import dev.counters.strategy.StrategyFactory;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Retries happen in one layer: the most statements one call can send when every attempt fails is bounded by the
 * configured attempts, not by a product of nested retries. Counted at the JDBC driver, on a real database, for every
 * retry path: combined increments, keyed increments, monotonic increments, block and gapless reservations. Each call
 * also runs exactly one Resilience4j retry once ({@link #executions}): a loop around another would run it again.
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
    /** A retry of {@code attempts} that repeats only what surely wrote nothing, as the defaults do. */
    private static RetryConfig quick(int attempts) {
        return RetryConfig.custom().maxAttempts(attempts).waitDuration(Duration.ofMillis(1))
                .retryExceptions(TransientStoreException.class).build();
    }

    /** The calls every retry of the registry has run, retried or not: one per retry loop entered. */
    /**
     * Under permanent rollbacks, one call fails as not applied, sends at most one statement per configured attempt,
     * and enters exactly one retry loop.
     */
    private static void assertOneBoundedLoopUnderRollbacks(FaultInjectingDataSource faulty, RetryRegistry registry,
            String call, ThrowingCallable action) {
        faulty.deadlocks = true;
        try {
            long before = faulty.statements.get();
            long entered = executions(registry);
            assertThatThrownBy(action).isInstanceOf(TransientStoreException.class);
            assertThat(faulty.statements.get() - before).as("statements sent by one " + call)
                    .isBetween(1L, (long) ATTEMPTS);
            assertThat(executions(registry) - entered).as("retry loops entered by one call").isEqualTo(1);
        } finally {
            faulty.deadlocks = false;
        }
    }

    private static long executions(RetryRegistry registry) {
        long calls = 0;
        for (Retry retry : registry.getAllRetries()) {
            Retry.Metrics metrics = retry.getMetrics();
            calls += metrics.getNumberOfSuccessfulCallsWithoutRetryAttempt()
                    + metrics.getNumberOfSuccessfulCallsWithRetryAttempt()
                    + metrics.getNumberOfFailedCallsWithoutRetryAttempt()
                    + metrics.getNumberOfFailedCallsWithRetryAttempt();
        }
        return calls;
    }

    private static JooqCounterStore storeOn(FaultInjectingDataSource faulty) {
        return JooqCounterStore.builder(faulty).tablePrefix(JooqStores.shared(DATABASE).prefix()).build();
    }

    /** Keyed increments are repeated by the keyed retry ({@code counters-<strategy>-keyed}) only. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void keyedIncrementsUnderPermanentRollbacksSendAtMostOneStatementPerConfiguredAttempt(String strategy,
            StrategyFactory factory) {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-" + strategy, quick(ATTEMPTS));
        registry.retry("counters-" + strategy + "-keyed", quick(ATTEMPTS));
        try (CounterService counters = CounterService.builder(storeOn(faulty)).retryRegistry(registry)
                .defaultStrategy(factory).build()) {
            assertOneBoundedLoopUnderRollbacks(faulty, registry, "keyed increment", () -> counters.incrementAndGet(
                    "keyed." + strategy, 1, IdempotencyKey.of(UUID.randomUUID().toString())));
        }
    }

    /**
     * A monotonic increment under permanent rollbacks: each attempt sends one statement (the load of the maximum, or
     * the write of a value), and the strategy's retry is the only loop.
     */
    @Test
    void monotonicUnderPermanentRollbacksSendsAtMostOneStatementPerConfiguredAttempt() {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-monotonic", quick(ATTEMPTS));
        try (CounterService counters = CounterService.builder(storeOn(faulty)).retryRegistry(registry)
                .defaultStrategy(Strategies.monotonic(MonotonicSettings.defaults().withChanceToWrite(1.0))).build()) {
            String name = "monotonic.bounded" + System.nanoTime();
            counters.increment(name, 1); // loaded: from now on each attempt writes
            assertOneBoundedLoopUnderRollbacks(faulty, registry, "increment", () -> counters.increment(name, 1));
        }
    }

    /**
     * A shared cache that loses every value's copy while it is written: each value is dropped and another taken, within
     * the same budget as failed writes. Before, a loop of 5 such attempts ran around the 10 attempts of each write's
     * retry: up to 50 writes for one increment, and 5 whatever the configured attempts.
     */
    @Test
    void monotonicDroppingEveryValueStopsWithinTheConfiguredAttempts() {
        FaultInjectingDataSource counted = new FaultInjectingDataSource(DATABASE.dataSource());
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-monotonic", quick(ATTEMPTS));
        try (CounterService counters = CounterService.builder(storeOn(counted)).retryRegistry(registry)
                .defaultStrategy(Strategies.monotonic(MonotonicSettings.defaults().withChanceToWrite(1.0),
                        new LosingCache())).build()) {
            // Resolved first: a monotonic counter's first use reads whether it holds a counting strategy's data.
            Counter counter = counters.counter("monotonic.dropped" + System.nanoTime());
            long before = counted.statements.get();
            long entered = executions(registry);
            assertThatThrownBy(() -> counter.increment(1)).isInstanceOf(CounterContentionException.class);
            assertThat(counted.statements.get() - before).as("statements: one load, then a write per attempt")
                    .isEqualTo(1L + ATTEMPTS);
            assertThat(executions(registry) - entered).as("retry loops entered by one call").isEqualTo(1);
        }
    }

    static Stream<Arguments> sequenceModes() {
        return Stream.of(Arguments.of("block", SequenceSettings.defaults()),
                Arguments.of("gapless", SequenceSettings.gapless()));
    }

    /** A reservation under permanent rollbacks: one statement per attempt of the sequences' retry. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sequenceModes")
    void reservationsUnderPermanentRollbacksSendAtMostOneStatementPerConfiguredAttempt(String mode,
            SequenceSettings settings) {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-sequences", quick(ATTEMPTS));
        try (SequenceService sequences = SequenceService.builder(storeOn(faulty)).retryRegistry(registry)
                .defaultSettings(settings).build()) {
            assertOneBoundedLoopUnderRollbacks(faulty, registry, "reservation",
                    () -> sequences.next("bounded." + mode + System.nanoTime()));
        }
    }

    /** A shared cache whose copy is lost during every write: no value it hands out may be returned. */
    private static final class LosingCache implements MonotonicCache {

        private final ConcurrentHashMap<CounterName, AtomicLong> values = new ConcurrentHashMap<>();

        @Override
        public OptionalLong get(CounterName name) {
            AtomicLong value = values.get(name);
            return value == null ? OptionalLong.empty() : OptionalLong.of(value.get());
        }

        @Override
        public long loadIfAbsent(CounterName name, LongSupplier stored) {
            long loaded = stored.getAsLong();
            return values.computeIfAbsent(name, key -> new AtomicLong(loaded)).get();
        }

        @Override
        public Optional<Added> addAndGet(CounterName name, long delta) {
            AtomicLong value = values.get(name);
            return value == null ? Optional.empty() : Optional.of(new Added(value.addAndGet(delta), 1));
        }

        @Override
        public boolean holds(CounterName name, long copy) {
            return false;
        }

        @Override
        public void remove(CounterName name) {
            values.remove(name);
        }
    }
}
