package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CacheUnavailableException;
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
import dev.counters.sequence.Reservation;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DeltaLog;
import dev.counters.spi.MonotonicCache;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Retries happen in one layer: the most statements one call can send when every attempt fails is bounded by the
 * configured attempts, not by a product of nested retries. Counted at the JDBC driver, on a real database, for every
 * path that repeats a write: combined increments (atomic, sharded, node, optimistic, delta-log, with delta ids taken
 * or purged), keyed increments, monotonic increments (failed writes, dropped values, a busy cache), block and
 * gapless reservations (and a block draw under contention), buffered flushes (bounded by their circuit breaker).
 * Each call also runs exactly one Resilience4j retry once ({@link #executions}): a loop around another would run it
 * again. The store never repeats a statement.
 */
class RetryBoundsTest {

    private static final TestDatabase DATABASE = TestDatabase.H2;
    private static final int ATTEMPTS = 4;

    static Stream<Arguments> strategies() {
        Duration tiny = Duration.ofMillis(1);
        return Stream.of(
                Arguments.of("atomic", AtomicSettings.defaults()),
                Arguments.of("sharded", ShardedSettings.defaults()),
                Arguments.of("node", NodeSettings.defaults()),
                Arguments.of("optimistic", new OptimisticSettings(ATTEMPTS, tiny, tiny)),
                Arguments.of("delta-log", DeltaLogSettings.defaults().withAppendAttempts(ATTEMPTS)));
    }

    /**
     * Every statement is a deadlock victim. The strategy's own retry repeats the increment; the store tries each call
     * once. Before, the store retried 10 times inside each of the strategy's attempts.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void permanentRollbacksSendAtMostOneStatementPerConfiguredAttempt(String strategy, StrategySettings factory) {
        JooqStores stores = JooqStores.shared(DATABASE);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        JooqCounterStore store =
                JooqCounterStore.builder(faulty).tablePrefix(stores.prefix()).build();
        // The application's registry configures the strategies that retry through the default policy.
        RetryRegistry registry = RetryRegistry.ofDefaults();
        RetryConfig quick = RetryConfig.custom()
                .maxAttempts(ATTEMPTS)
                .waitDuration(Duration.ofMillis(1))
                .retryExceptions(TransientStoreException.class)
                .build();
        registry.retry("counters-" + strategy, quick);
        try (CounterService counters = CounterService.builder(store)
                .retryRegistry(registry)
                .defaultStrategy(factory)
                .build()) {
            faulty.deadlocks = true;
            long before = faulty.statements.get();
            assertThatThrownBy(() -> counters.increment("bounded." + strategy, 1))
                    .isInstanceOf(TransientStoreException.class);
            assertThat(faulty.statements.get() - before)
                    .as("statements sent by one increment")
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
        JooqCounterStore store =
                JooqCounterStore.builder(counted).tablePrefix(stores.prefix()).build();
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
                .defaultStrategy(new OptimisticSettings(ATTEMPTS, tiny, tiny))
                .build()) {
            long before = counted.statements.get();
            assertThatThrownBy(() -> counters.increment(name.value(), 1))
                    .isInstanceOf(CounterContentionException.class);
            assertThat(counted.statements.get() - before)
                    .as("statements sent by one increment")
                    .isEqualTo(2L * ATTEMPTS);
        }
        assertThat(stores.store().get(name)).as("only the other writer's").isEqualTo(ATTEMPTS);
    }
    /** A retry of {@code attempts} that repeats only what surely wrote nothing, as the defaults do. */
    private static RetryConfig quick(int attempts) {
        return RetryConfig.custom()
                .maxAttempts(attempts)
                .waitDuration(Duration.ofMillis(1))
                .retryExceptions(TransientStoreException.class)
                .build();
    }

    /**
     * Under permanent rollbacks, one call fails as not applied, sends at most one statement per configured attempt,
     * and enters exactly one retry loop.
     */
    private static void assertOneBoundedLoopUnderRollbacks(
            FaultInjectingDataSource faulty, RetryRegistry registry, String call, ThrowingCallable action) {
        faulty.deadlocks = true;
        try {
            long before = faulty.statements.get();
            long entered = executions(registry);
            assertThatThrownBy(action).isInstanceOf(TransientStoreException.class);
            assertThat(faulty.statements.get() - before)
                    .as("statements sent by one " + call)
                    .isBetween(1L, (long) ATTEMPTS);
            assertThat(executions(registry) - entered)
                    .as("retry loops entered by one call")
                    .isEqualTo(1);
        } finally {
            faulty.deadlocks = false;
        }
    }

    /** The calls every retry of the registry has run, retried or not: one per retry loop entered. */
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
        return JooqCounterStore.builder(faulty)
                .tablePrefix(JooqStores.shared(DATABASE).prefix())
                .build();
    }

    /** Keyed increments are repeated by the keyed retry ({@code counters-<strategy>-keyed}) only. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void keyedIncrementsUnderPermanentRollbacksSendAtMostOneStatementPerConfiguredAttempt(
            String strategy, StrategySettings factory) {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-" + strategy, quick(ATTEMPTS));
        registry.retry("counters-" + strategy + "-keyed", quick(ATTEMPTS));
        try (CounterService counters = CounterService.builder(storeOn(faulty))
                .retryRegistry(registry)
                .defaultStrategy(factory)
                .build()) {
            assertOneBoundedLoopUnderRollbacks(
                    faulty,
                    registry,
                    "keyed increment",
                    () -> counters.incrementAndGet(
                            "keyed." + strategy,
                            1,
                            IdempotencyKey.of(UUID.randomUUID().toString())));
        }
    }

    /** Growing a sharded counter's shard count under permanent rollbacks: the strategy's retry is the only loop. */
    @Test
    void growingShardsUnderPermanentRollbacksSendsAtMostOneStatementPerConfiguredAttempt() {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-sharded", quick(ATTEMPTS));
        try (CounterService counters = CounterService.builder(storeOn(faulty))
                .retryRegistry(registry)
                .defaultStrategy(ShardedSettings.defaults())
                .build()) {
            String name = "sharded.grown" + System.nanoTime();
            assertOneBoundedLoopUnderRollbacks(
                    faulty, registry, "growShards", () -> counters.admin().growShards(name, 32));
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
        try (CounterService counters = CounterService.builder(storeOn(faulty))
                .retryRegistry(registry)
                .defaultStrategy(MonotonicSettings.defaults().withChanceToWrite(1.0))
                .build()) {
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
        try (CounterService counters = CounterService.builder(storeOn(counted))
                .retryRegistry(registry)
                .defaultStrategy(MonotonicSettings.defaults().withChanceToWrite(1.0))
                .monotonicCache(new LosingCache())
                .build()) {
            // Resolved first: a monotonic counter's first use reads whether it holds a counting strategy's data.
            Counter counter = counters.counter("monotonic.dropped" + System.nanoTime());
            long before = counted.statements.get();
            long entered = executions(registry);
            assertThatThrownBy(() -> counter.increment(1)).isInstanceOf(CounterContentionException.class);
            assertThat(counted.statements.get() - before)
                    .as("statements: one load, then a write per attempt")
                    .isEqualTo(1L + ATTEMPTS);
            assertThat(executions(registry) - entered)
                    .as("retry loops entered by one call")
                    .isEqualTo(1);
        }
    }

    /**
     * Every delta id an append tries is taken by another writer's row. Each attempt sends two statements (the insert,
     * then the read of the row under the id) and appends nothing; the strategy's retry makes the next under a new id.
     * Before, a loop of 10 ids ran inside each of the retry's attempts.
     */
    @Test
    void deltaLogWithEveryIdTakenSendsTwoStatementsPerConfiguredAttempt() {
        FaultInjectingDataSource counted = new FaultInjectingDataSource(DATABASE.dataSource());
        CounterStore other = JooqStores.shared(DATABASE).store(); // another writer, on its own connections
        CounterStore squatted = new ForwardingCounterStore(storeOn(counted)) {
            @Override
            public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
                other.capability(DeltaLog.class).orElseThrow().appendDelta(counter, deltaId, 1_000, now);
                return super.appendDelta(counter, deltaId, delta, now);
            }
        };
        assertDeltaLogAppendFailsAfterTwoStatementsPerAttempt(counted, squatted, "taken");
    }

    /**
     * Every delta id an append tries is taken by a row that is purged between the insert and the read of it: the
     * store cannot tell whose it was, appends nothing and says so, once. Before, the store inserted again in a loop
     * of its own, with no bound.
     */
    @Test
    @Timeout(60)
    void deltaLogWithEveryTakenRowPurgedMeanwhileSendsTwoStatementsPerConfiguredAttempt() {
        FaultInjectingDataSource counted = new FaultInjectingDataSource(DATABASE.dataSource());
        CounterStore other = JooqStores.shared(DATABASE).store();
        CounterName[] appending = new CounterName[1];
        CounterStore purged = new ForwardingCounterStore(storeOn(counted)) {
            @Override
            public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
                other.capability(DeltaLog.class).orElseThrow().appendDelta(counter, deltaId, 1_000, now);
                appending[0] = counter;
                try {
                    return super.appendDelta(counter, deltaId, delta, now);
                } finally {
                    appending[0] = null;
                }
            }
        };
        counted.beforeQuery = () -> {
            if (appending[0] != null) {
                other.delete(appending[0]);
            }
        };
        assertDeltaLogAppendFailsAfterTwoStatementsPerAttempt(counted, purged, "purged");
    }

    private static void assertDeltaLogAppendFailsAfterTwoStatementsPerAttempt(
            FaultInjectingDataSource counted, CounterStore store, String why) {
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-delta-log", quick(ATTEMPTS));
        try (CounterService counters = CounterService.builder(store)
                .retryRegistry(registry)
                .defaultStrategy(DeltaLogSettings.defaults())
                .build()) {
            Counter counter = counters.counter("delta-log." + why + System.nanoTime());
            long before = counted.statements.get();
            long entered = executions(registry);
            assertThatThrownBy(() -> counter.increment(1))
                    .isInstanceOf(TransientStoreException.class)
                    .hasMessageContaining("nothing was appended");
            assertThat(counted.statements.get() - before)
                    .as("statements: an insert and a read per attempt")
                    .isEqualTo(2L * ATTEMPTS);
            assertThat(executions(registry) - entered)
                    .as("retry loops entered by one call")
                    .isEqualTo(1);
        }
    }

    /**
     * A keyed delta-log increment whose every delta id is taken: each attempt of the keyed retry is one transaction
     * (the key, the insert, the read of the row under the id) that rolls back, key and all, and the increment fails
     * as not applied. Before, the taken id was ignored and the key recorded with nothing appended: a lost increment
     * that a repeat under the key would never write.
     */
    @Test
    void keyedDeltaLogWithEveryIdTakenRollsBackItsKeyOncePerConfiguredAttempt() {
        FaultInjectingDataSource counted = new FaultInjectingDataSource(DATABASE.dataSource());
        CounterStore other = JooqStores.shared(DATABASE).store();
        boolean[] squatting = {true};
        CounterStore squatted = new ForwardingCounterStore(storeOn(counted)) {
            @Override
            public KeyedIncrement applyOnce(
                    String key, CounterName counter, long delta, Instant now, KeyedWrite write) {
                return super.applyOnce(
                        key,
                        counter,
                        delta,
                        now,
                        transaction -> write.apply(new ForwardingCounterStore(transaction) {
                            @Override
                            public OptionalLong appendDelta(CounterName name, String deltaId, long value, Instant at) {
                                if (squatting[0]) {
                                    other.capability(DeltaLog.class)
                                            .orElseThrow()
                                            .appendDelta(name, deltaId, 1_000, at);
                                }
                                return super.appendDelta(name, deltaId, value, at);
                            }
                        }));
            }
        };
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-delta-log", quick(ATTEMPTS));
        registry.retry("counters-delta-log-keyed", quick(ATTEMPTS));
        try (CounterService counters = CounterService.builder(squatted)
                .retryRegistry(registry)
                .defaultStrategy(DeltaLogSettings.defaults())
                .build()) {
            String name = "keyed.taken" + System.nanoTime();
            IdempotencyKey key = IdempotencyKey.of(UUID.randomUUID().toString());
            long before = counted.statements.get();
            long entered = executions(registry);
            assertThatThrownBy(() -> counters.increment(name, 1, key))
                    .isInstanceOf(TransientStoreException.class)
                    .hasMessageContaining("nothing was appended");
            assertThat(counted.statements.get() - before)
                    .as("statements: the key, the insert and the read, per attempt")
                    .isEqualTo(3L * ATTEMPTS);
            assertThat(executions(registry) - entered)
                    .as("retry loops entered by one call")
                    .isEqualTo(1);
            squatting[0] = false;
            counters.increment(name, 1, key);
            assertThat(counters.get(name))
                    .as("the other writer's deltas, and this increment: its key was not recorded")
                    .isEqualTo(1_000L * ATTEMPTS + 1);
        }
    }

    /**
     * A shared cache that another loader keeps busy: each attempt of the increment tries one load (one read of the
     * stored maximum), and the strategy's retry is the only loop; then the cache is reported unavailable. Before, the
     * cache waited for the other loader itself, up to twice its load timeout, inside each attempt.
     */
    @Test
    void monotonicWithABusyCacheReadsTheMaximumOncePerConfiguredAttempt() {
        FaultInjectingDataSource counted = new FaultInjectingDataSource(DATABASE.dataSource());
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-monotonic", quick(ATTEMPTS));
        try (CounterService counters = CounterService.builder(storeOn(counted))
                .retryRegistry(registry)
                .defaultStrategy(MonotonicSettings.defaults())
                .monotonicCache(new BusyCache())
                .build()) {
            Counter counter = counters.counter("monotonic.busy" + System.nanoTime());
            long before = counted.statements.get();
            long entered = executions(registry);
            assertThatThrownBy(() -> counter.increment(1))
                    .isInstanceOf(CacheUnavailableException.class)
                    .hasMessageContaining("after " + ATTEMPTS + " attempts");
            assertThat(counted.statements.get() - before)
                    .as("statements: a read of the maximum per attempt")
                    .isEqualTo(ATTEMPTS);
            assertThat(executions(registry) - entered)
                    .as("retry loops entered by one call")
                    .isEqualTo(1);
        }
    }

    /**
     * Eight threads draw from a sequence whose blocks hold one number, and no block comes from the background: each
     * draw reserves at most one block, however often the others empty it first. Before, a draw whose block was emptied
     * by others reserved again, with no bound.
     */
    @Test
    void aBlockSequenceDrawReservesAtMostOnceUnderContention() throws Exception {
        ThreadLocal<int[]> reserved = ThreadLocal.withInitial(() -> new int[1]);
        CounterStore counting = new ForwardingCounterStore(
                JooqStores.shared(DATABASE).store()) {
            @Override
            public Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue) {
                if (Thread.currentThread().getName().startsWith("counters-sequence-prefetch")) {
                    // No block comes from the background: every block is reserved by a draw.
                    throw new IllegalStateException("prefetch failed (injected)");
                }
                reserved.get()[0]++;
                return super.reserve(sequence, count, start, increment, maxValue);
            }
        };
        int threads = 8;
        int draws = 300;
        AtomicInteger most = new AtomicInteger();
        Set<Long> drawn = ConcurrentHashMap.newKeySet();
        try (SequenceService sequences = SequenceService.builder(counting)
                .defaultSettings(SequenceSettings.defaults().withBlockSize(1).withMaxBlockSize(1))
                .build()) {
            String name = "contended" + System.nanoTime();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < draws; i++) {
                            reserved.get()[0] = 0;
                            drawn.add(sequences.next(name));
                            most.accumulateAndGet(reserved.get()[0], Math::max);
                        }
                    }));
                }
                for (Future<?> future : done) {
                    future.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
        assertThat(drawn).as("unique").hasSize(threads * draws);
        assertThat(most).as("reservations made by one draw").hasValueLessThanOrEqualTo(1);
    }

    /**
     * A buffered increment sends no statement; the flusher's attempts under permanent rollbacks are bounded by its
     * circuit breaker ({@code counters-buffered}): three in a row, then one per open interval.
     */
    @Test
    void bufferedFlushesUnderPermanentRollbacksAreBoundedByTheCircuitBreaker() throws Exception {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        Duration open = Duration.ofMillis(200);
        CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
        breakers.circuitBreaker(
                "counters-buffered",
                CircuitBreakerConfig.custom()
                        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                        .slidingWindowSize(3)
                        .minimumNumberOfCalls(3)
                        .failureRateThreshold(100)
                        .waitDurationInOpenState(open)
                        .permittedNumberOfCallsInHalfOpenState(1)
                        .build());
        BufferedSettings settings = BufferedSettings.defaults()
                .withFlushInterval(Duration.ofMillis(10))
                .withShutdownTimeout(Duration.ofSeconds(5));
        try (CounterService counters = CounterService.builder(storeOn(faulty))
                .circuitBreakerRegistry(breakers)
                .defaultStrategy(settings)
                .build()) {
            Counter counter = counters.counter("buffered.bounded" + System.nanoTime());
            faulty.deadlocks = true;
            long before = faulty.statements.get();
            long started = System.nanoTime();
            counter.increment(1);
            assertThat(faulty.statements.get() - before)
                    .as("statements sent by the increment itself")
                    .isZero();
            Thread.sleep(800);
            long flushes = faulty.statements.get() - before; // each attempt's first statement is rolled back
            long elapsed = System.nanoTime() - started;
            long openIntervals = (elapsed + open.toNanos() - 1) / open.toNanos();
            assertThat(flushes)
                    .as("flush attempts in %d ms", elapsed / 1_000_000)
                    .isBetween(1L, 3 + openIntervals);
            faulty.deadlocks = false;
        }
    }

    static Stream<Arguments> sequenceModes() {
        return Stream.of(
                Arguments.of("block", SequenceSettings.defaults()),
                Arguments.of("gapless", SequenceSettings.gapless()));
    }

    /** A reservation under permanent rollbacks: one statement per attempt of the sequences' retry. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("sequenceModes")
    void reservationsUnderPermanentRollbacksSendAtMostOneStatementPerConfiguredAttempt(
            String mode, SequenceSettings settings) {
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(DATABASE.dataSource());
        RetryRegistry registry = RetryRegistry.ofDefaults();
        registry.retry("counters-sequences", quick(ATTEMPTS));
        try (SequenceService sequences = SequenceService.builder(storeOn(faulty))
                .retryRegistry(registry)
                .defaultSettings(settings)
                .build()) {
            assertOneBoundedLoopUnderRollbacks(
                    faulty, registry, "reservation", () -> sequences.next("bounded." + mode + System.nanoTime()));
        }
    }

    /** A shared cache where another loader always holds the load: each try reads the maximum, then finds it lost. */
    private static final class BusyCache implements MonotonicCache {

        @Override
        public OptionalLong get(CounterName name) {
            return OptionalLong.empty();
        }

        @Override
        public OptionalLong tryLoad(CounterName name, LongSupplier stored) {
            stored.getAsLong();
            return OptionalLong.empty();
        }

        @Override
        public Optional<Added> addAndGet(CounterName name, long delta) {
            return Optional.empty();
        }

        @Override
        public boolean holds(CounterName name, long copy) {
            return false;
        }

        @Override
        public void remove(CounterName name) {}
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
        public OptionalLong tryLoad(CounterName name, LongSupplier stored) {
            long loaded = stored.getAsLong();
            return OptionalLong.of(
                    values.computeIfAbsent(name, key -> new AtomicLong(loaded)).get());
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
