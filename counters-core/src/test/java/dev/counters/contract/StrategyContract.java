package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.BufferFullException;
import dev.counters.CacheUnavailableException;
import dev.counters.Counter;
import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.IdempotencyKey;
import dev.counters.IdempotencyKeyReusedException;
import dev.counters.NodeIdInUseException;
import dev.counters.StrategyStatistics;
import dev.counters.WindowSettings;
import dev.counters.WindowedCounter;
import dev.counters.history.CounterChecker;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DatabaseClock;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.SessionLocks;
import dev.counters.spi.TotalCache;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import dev.counters.testing.TestThreads;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every strategy must do on every store, written once; each store runs it through a subclass of a few lines.
 * Exact strategies count exactly under concurrency, and each strategy's particular promises hold.
 */
public abstract class StrategyContract extends ContractSupport {

    protected StrategyContract(StoreFixture fixture) {
        super(fixture);
    }

    /** A counter name that no other test uses. */
    protected String name(String suffix) {
        return prefix() + suffix;
    }

    static Stream<Arguments> exactStrategies() {
        return Stream.of(
                Arguments.of("atomic", AtomicSettings.defaults()),
                Arguments.of("optimistic", OptimisticSettings.defaults()),
                Arguments.of("sharded-random", ShardedSettings.defaults()),
                Arguments.of(
                        "sharded-thread", ShardedSettings.defaults().withSelection(ShardedSettings.Selection.THREAD)),
                Arguments.of("node", NodeSettings.defaults()),
                Arguments.of("buffered", BufferedSettings.defaults()),
                Arguments.of("delta-log", DeltaLogSettings.defaults()));
    }

    /**
     * The exact strategies and {@code bounded} with bounds too wide to meet: everything that holds for an exact counter
     * holds for a bounded one. Not for the tests of the 64-bit range (a bounded counter refuses first) or of windows
     * (it takes none).
     */
    static Stream<Arguments> exactAndBoundedStrategies() {
        return Stream.concat(
                exactStrategies(),
                Stream.of(Arguments.of("bounded", BoundedSettings.defaults().withBounds(-(1L << 62), 1L << 62, 0))));
    }

    private CounterService service(CounterStore store, StrategySettings strategy) {
        return CounterService.builder(store).defaultStrategy(strategy).build();
    }

    /** A service whose strategies use the shared caches of {@code caches}, as every node of an application does. */
    private CounterService service(CounterStore store, StrategySettings strategy, SharedCaches caches) {
        return CounterService.builder(store)
                .defaultStrategy(strategy)
                .totalCache(caches.totals)
                .monotonicCache(caches.monotonic)
                .build();
    }

    // ---- every exact strategy ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("exactAndBoundedStrategies")
    void sixteenThreadsOnOneHotCounterAreExact(String label, StrategySettings strategy) {
        int threads = 16;
        int perThread = incrementsPerThread();
        String hot = name("hot");
        try (CounterService counters = service(store(), strategy)) {
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    counters.increment(hot);
                }
            });
            assertThat(counters.getExact(hot)).isEqualTo((long) threads * perThread);
            assertThat(counters.get(hot)).isEqualTo((long) threads * perThread);
        }
    }

    /**
     * Two rules of one strategy in one service, as an application configures them (likes and views, both buffered):
     * each starts, takes concurrent increments and durable ones whose dependent stage reads the other rule's counter,
     * and both are exact there and after a restart.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("exactAndBoundedStrategies")
    void twoRulesOfOneStrategyAreExactSideBySideAndAfterARestart(String label, StrategySettings strategy) {
        int threads = 4;
        int perThread = Math.min(incrementsPerThread(), 200);
        String likes = name("likes.hot");
        String views = name("views.hot");
        try (CounterService counters = twoRules(strategy)) {
            Concurrently.run(threads, thread -> {
                String mine = thread % 2 == 0 ? likes : views;
                String other = thread % 2 == 0 ? views : likes;
                for (int i = 0; i < perThread; i++) {
                    counters.increment(mine);
                }
                assertThat(counters.incrementDurably(mine, 1)
                                .thenApply(v -> counters.get(other))
                                .get(10, TimeUnit.SECONDS))
                        .isNotNegative();
            });
            long each = (long) threads / 2 * (perThread + 1);
            counters.flush().orTimeout(10, TimeUnit.SECONDS).join();
            assertThat(counters.getExact(likes)).isEqualTo(each);
            assertThat(counters.getExact(views)).isEqualTo(each);
        }
        try (CounterService restarted = twoRules(strategy)) {
            assertThat(restarted.get(List.of(likes, views)))
                    .as("after a restart")
                    .containsEntry(likes, (long) threads / 2 * (perThread + 1))
                    .containsEntry(views, (long) threads / 2 * (perThread + 1));
            restarted.increment(views);
            assertThat(restarted.getExact(views)).isEqualTo((long) threads / 2 * (perThread + 1) + 1);
        }
    }

    private CounterService twoRules(StrategySettings strategy) {
        return CounterService.builder(store())
                .rule(name("likes.*"), CounterRule.of(strategy))
                .rule(name("views.*"), CounterRule.of(strategy))
                .build();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exactAndBoundedStrategies")
    void incrementAndGetIncludesTheDeltaAndReadsManyAtOnce(String label, StrategySettings strategy) {
        try (CounterService counters = service(store(), strategy)) {
            counters.increment(name("a"), 5);
            assertThat(counters.incrementAndGet(name("a"), 2)).isEqualTo(7);
            counters.increment(name("b"));
            assertThat(counters.get(List.of(name("a"), name("b"), name("c"))))
                    .containsExactly(Map.entry(name("a"), 7L), Map.entry(name("b"), 1L), Map.entry(name("c"), 0L));
            if (!label.equals("buffered") && !label.equals("delta-log")) { // cells: only what was flushed or folded
                assertThat(counters.admin().cells(name("a")).values().stream()
                                .mapToLong(Long::longValue)
                                .sum())
                        .isEqualTo(7);
            }
            counters.delete(name("a"));
            assertThat(counters.getExact(name("a"))).isZero();
        }
    }

    /** Each strategy with all of a counter in one row, where the database checks the range atomically. */
    static Stream<Arguments> oneRowStrategies() {
        return Stream.of(
                Arguments.of("atomic", AtomicSettings.defaults()),
                Arguments.of("optimistic", OptimisticSettings.defaults()),
                Arguments.of("sharded-1", ShardedSettings.defaults().withShards(1)),
                Arguments.of("node", NodeSettings.defaults()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("oneRowStrategies")
    void overflowOfARowIsRefusedAndWritesNothing(String label, StrategySettings strategy) {
        try (CounterService counters = service(store(), strategy)) {
            counters.increment(name("big"), Long.MAX_VALUE - 10);
            assertThatThrownBy(() -> counters.increment(name("big"), 11))
                    .isInstanceOf(CounterOverflowException.class)
                    .hasMessageContaining(name("big"));
            assertThat(counters.getExact(name("big"))).isEqualTo(Long.MAX_VALUE - 10);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exactStrategies")
    void aTotalBeyondTheLongRangeIsReportedNeverWrapped(String label, StrategySettings strategy) {
        try (CounterService counters = service(store(), strategy)) {
            String counter = name("huge");
            try {
                for (int i = 0; i < 64; i++) {
                    counters.increment(counter, Long.MAX_VALUE / 32);
                }
            } catch (CounterOverflowException refused) {
                // strategies with one row refuse the increment that would overflow it
            }
            // Whatever was accepted, a read either fits in 64 bits or says it does not.
            try {
                assertThat(counters.getExact(counter)).isPositive();
            } catch (CounterOverflowException e) {
                assertThat(e).hasMessageContaining("outside the 64-bit range");
            }
        }
    }

    // ---- optimistic ----

    // ---- idempotency keys, every exact strategy ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("exactAndBoundedStrategies")
    void aKeyedIncrementCountsOnceHoweverOftenAnyNodeRepeatsIt(String label, StrategySettings strategy) {
        String counter = name("keyed");
        IdempotencyKey key = IdempotencyKey.of(prefix() + "request-1");
        try (CounterService a = service(store(), strategy);
                CounterService b = service(anotherStore(), strategy)) {
            a.increment(counter, 5, key);
            a.increment(counter, 5, key); // buffered: recognised in the buffer
            a.flush().join();
            a.increment(counter, 5, key); // buffered: recognised among the keys it flushed
            b.increment(counter, 5, key); // another node, after the first is stored
            a.counter(counter).increment(5, key);
            b.flush().join();
            a.increment(counter, 1);
            a.flush().join();
            assertThat(a.getExact(counter)).isEqualTo(6);
            assertThat(b.getExact(counter)).isEqualTo(6);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exactAndBoundedStrategies")
    void aRepeatedIncrementAndGetReturnsWhatTheFirstCallReturned(String label, StrategySettings strategy) {
        String counter = name("keyed-value");
        IdempotencyKey key = IdempotencyKey.of(prefix() + "request-2");
        try (CounterService counters = service(store(), strategy)) {
            counters.increment(counter, 10);
            assertThat(counters.incrementAndGet(counter, 5, key)).isEqualTo(15);
            counters.increment(counter, 1);
            long repeated = counters.incrementAndGet(counter, 5, key);
            // Buffered returns the counter's value now: it records no value, to keep its increments in memory.
            assertThat(repeated).isEqualTo(label.equals("buffered") ? 16 : 15);
            assertThat(counters.getExact(counter)).isEqualTo(16);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("exactAndBoundedStrategies")
    void aKeyRepeatedForAnotherDeltaOrCounterIsRefusedNamingItAndWritesNothing(
            String label, StrategySettings strategy) {
        String counter = name("keyed-misuse");
        IdempotencyKey key = IdempotencyKey.of(prefix() + "request-3");
        try (CounterService counters = service(store(), strategy)) {
            counters.increment(counter, 5, key);
            assertThatThrownBy(() -> counters.increment(counter, 6, key))
                    .isInstanceOf(IdempotencyKeyReusedException.class)
                    .hasMessageContaining(key.value())
                    .hasMessageContaining("counter '" + counter + "'");
            counters.flush().join();
            assertThatThrownBy(() -> counters.incrementAndGet(name("keyed-other"), 5, key))
                    .isInstanceOf(IdempotencyKeyReusedException.class)
                    .hasMessageContaining(key.value());
            assertThat(counters.getExact(counter)).isEqualTo(5);
            assertThat(counters.getExact(name("keyed-other"))).isZero();
            assertThatThrownBy(() -> counters.increment(counter, 5, null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Idempotency key");
            assertThatThrownBy(() -> IdempotencyKey.of("has space"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("index 3");
        }
    }

    /** Every key sent by two threads of two nodes at once: each counts once. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("exactAndBoundedStrategies")
    void concurrentRepeatsFromTwoNodesCountEachKeyOnce(String label, StrategySettings strategy) {
        String counter = name("keyed-concurrent");
        int keys = 150;
        try (CounterService a = service(store(), strategy);
                CounterService b = service(anotherStore(), strategy)) {
            Concurrently.run(4, thread -> {
                CounterService mine = thread % 2 == 0 ? a : b;
                for (int i = 0; i < keys; i++) {
                    // Threads 0 and 1 share keys (one on each node), as do threads 2 and 3.
                    mine.increment(counter, i + 1, IdempotencyKey.of(prefix() + (thread / 2) + "-" + i));
                }
            });
            a.flush().join();
            b.flush().join();
            long expected = 2L * keys * (keys + 1) / 2;
            assertThat(a.getExact(counter)).isEqualTo(expected);
            assertThat(b.getExact(counter)).isEqualTo(expected);
        }
    }

    // ---- windows, every exact strategy ----

    /**
     * Eight threads increment a windowed counter while the clock crosses a window boundary every 20 ms, and a month's
     * end: each window holds exactly the increments made in it. An increment whose call spanned a boundary may be in
     * either window, so the history checker takes it as maybe applied in each; the windows' total must then equal
     * every acknowledged increment, which leaves no room to count one twice or drop it.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("exactStrategies")
    void eachWindowHoldsExactlyItsIncrementsWhileTheClockCrossesBoundariesUnderLoad(
            String label, StrategySettings strategy) throws Exception {
        // 10 s before the next month's end in UTC: a clock behind the database's would be refused (windows purge by
        // the database's clock), so the run's clock is ahead of the real one.
        Instant monthEnd = YearMonth.now(ZoneOffset.UTC)
                .plusMonths(1)
                .atDay(1)
                .atStartOfDay(ZoneOffset.UTC)
                .toInstant();
        Instant first = monthEnd.minusSeconds(10);
        MutableClock clock = new MutableClock(first);
        WindowSettings settings = WindowSettings.of(Duration.ofSeconds(1));
        String counter = name("windowed");
        History history = new History();
        UniqueDeltas deltas = UniqueDeltas.between(new SplittableRandom(), 1, 1L << 31, false);
        Map<String, Instant> starts = new java.util.concurrent.ConcurrentHashMap<>();
        AtomicLong acknowledged = new AtomicLong();
        try (CounterService counters = CounterService.builder(store())
                .defaultStrategy(strategy)
                .windows(counter, settings)
                .clock(clock)
                .build()) {
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            Thread ticker = TestThreads.start(() -> {
                for (int tick = 0; tick < 25; tick++) {
                    java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
                    clock.advance(Duration.ofSeconds(1));
                }
                stop.set(true);
            });
            Concurrently.run(8, thread -> {
                while (!stop.get()) {
                    long delta = deltas.next();
                    Instant before = clock.instant();
                    counters.increment(counter, delta);
                    Instant after = clock.instant();
                    acknowledged.addAndGet(delta);
                    List<Instant> candidates = new ArrayList<>();
                    for (Instant start = before.truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
                            !start.isAfter(after);
                            start = start.plusSeconds(1)) {
                        candidates.add(start);
                    }
                    for (Instant start : candidates) {
                        String window = counter + "@" + start;
                        starts.put(window, start);
                        history.complete(
                                history.invoke(window, delta),
                                candidates.size() == 1 ? History.Outcome.OK : History.Outcome.UNKNOWN);
                    }
                }
            });
            ticker.join();
            counters.flush().get(30, TimeUnit.SECONDS);
            WindowedCounter windows = counters.windowed(counter);
            List<CounterChecker.Result> results =
                    CounterChecker.checkAll(history, window -> windows.at(starts.get(window)));
            assertThat(results)
                    .allSatisfy(result ->
                            assertThat(result.valid()).as(result.toString()).isTrue());
            List<WindowedCounter.Window> series =
                    windows.series(first, clock.instant().plusSeconds(1));
            assertThat(series.stream().mapToLong(WindowedCounter.Window::value).sum())
                    .as("every acknowledged increment, in one window each")
                    .isEqualTo(acknowledged.get());
            assertThat(series).extracting(WindowedCounter.Window::start).contains(monthEnd.minusSeconds(1), monthEnd);
            assertThat(results).as("windows the run crossed").hasSizeGreaterThan(10);
        }
    }

    @Test
    void monotonicTakesNoKeys() {
        try (CounterService counters = service(store(), MonotonicSettings.defaults())) {
            assertThatThrownBy(() -> counters.increment(name("ids-keyed"), 1, IdempotencyKey.of(prefix() + "k")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("monotonic");
        }
    }

    @Test
    void optimisticCombinesConcurrentIncrementsIntoFewerUpdates() {
        // A round trip of at least 200 µs, as any database has, even when the store under test is in memory.
        InterferingStore counting = new InterferingStore(store(), Duration.ofNanos(200_000));
        int threads = 16;
        int perThread = 500;
        String hot = name("combined");
        try (CounterService counters = service(counting, OptimisticSettings.defaults())) {
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    counters.increment(hot);
                }
            });
            assertThat(counters.get(hot)).isEqualTo((long) threads * perThread);
        }
        // Every caller was served, by far fewer successful updates than there were callers.
        assertThat(counting.successfulCompareAndSets.get()).isLessThan(threads * perThread / 2);
    }

    @Test
    void optimisticRetriesConflictsCarryingTheDelta() {
        InterferingStore interfering = new InterferingStore(store());
        try (CounterService counters = service(interfering, OptimisticSettings.defaults())) {
            counters.increment(name("x"), 10);
            interfering.compareAndSets.set(0);
            interfering.conflictNext(3);
            assertThat(counters.incrementAndGet(name("x"), 5)).isEqualTo(15);
            // Three lost compare-and-sets, then one written. The first attempt tries the cell as its last write left
            // it, then reads and tries again; each later attempt reads once: two retries.
            assertThat(interfering.compareAndSets).hasValue(4);
            assertThat(counters.get(name("x"))).isEqualTo(15);
            StrategyStatistics statistics = counters.statistics().get(0);
            assertThat(statistics.rule()).isEqualTo(StrategyStatistics.DEFAULT_RULE);
            assertThat(statistics.increments()).isEqualTo(2);
            assertThat(statistics.activity().conflicts()).isEqualTo(3);
            assertThat(statistics.activity().retries()).isEqualTo(2);
        }
    }

    @Test
    void optimisticSkipsTheReadWhileNoOtherWriterCameBetween() {
        InterferingStore counting = new InterferingStore(store());
        AtomicInteger reads = counting.reads;
        CounterName x = CounterName.of(name("alone"));
        try (CounterService counters = service(counting, OptimisticSettings.defaults())) {
            for (int i = 1; i <= 10; i++) {
                assertThat(counters.incrementAndGet(x.value(), 1)).isEqualTo(i);
            }
            assertThat(reads).as("only the first write reads").hasValue(1);
            assertThat(counting.compareAndSets).hasValue(10);
            store().add(x, "main", 100); // another process
            assertThat(counters.incrementAndGet(x.value(), 1)).isEqualTo(111);
            assertThat(reads).hasValue(2);
            assertThat(counters.get(x.value())).isEqualTo(111);
        }
    }

    /**
     * Another process resets the counter and writes it back to the version this one remembers, with another value:
     * the remembered cell must not be taken for it.
     */
    @Test
    void optimisticNeverOverwritesACounterResetByAnotherProcess() {
        String x = name("reset");
        try (CounterService first = service(store(), OptimisticSettings.defaults());
                CounterService second = service(store(), OptimisticSettings.defaults())) {
            first.increment(x, 42);
            first.increment(x, 1); // remembers value 43 at version 2
            second.delete(x);
            second.increment(x, 1);
            second.increment(x, 1); // value 2 at version 2
            assertThat(first.incrementAndGet(x, 1)).isEqualTo(3);
            assertThat(second.get(x)).isEqualTo(3);
        }
    }

    @Test
    void optimisticGivesUpAfterItsAttemptsAndWritesNothing() {
        InterferingStore interfering = new InterferingStore(store());
        OptimisticSettings settings = new OptimisticSettings(4, Duration.ofMillis(1), Duration.ofMillis(5));
        try (CounterService counters = service(interfering, settings)) {
            counters.increment(name("x"), 10);
            interfering.conflictNext(Integer.MAX_VALUE);
            assertThatThrownBy(() -> counters.increment(name("x"), 5))
                    .isInstanceOfSatisfying(CounterContentionException.class, e -> {
                        assertThat(e.attempts()).isEqualTo(4);
                        assertThat(e.counter()).isEqualTo(name("x"));
                    })
                    .hasMessageContaining("nothing was written");
            interfering.conflictNext(0);
            assertThat(counters.get(name("x"))).isEqualTo(10);
            assertThat(counters.statistics().get(0).activity().contentionFailures())
                    .isEqualTo(1);
            assertThat(counters.statistics().get(0).increments())
                    .as("the refused one is not counted")
                    .isEqualTo(1);
        }
    }

    // ---- sharded ----

    @Test
    void shardedGrowthUnderLoadStaysExact() {
        int threads = 8;
        int perThread = 2_000;
        String counter = name("growing");
        try (CounterService counters =
                service(store(), ShardedSettings.defaults().withShards(4))) {
            AtomicLong done = new AtomicLong();
            Concurrently.run(threads + 1, thread -> {
                if (thread == threads) {
                    for (int shards = 8; shards <= 64; shards *= 2) {
                        while (done.get() < (long) shards * perThread / 8) {
                            Thread.onSpinWait();
                        }
                        assertThat(counters.admin().growShards(counter, shards)).isEqualTo(shards);
                        assertThat(counters.getExact(counter)).isLessThanOrEqualTo((long) threads * perThread);
                    }
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    counters.increment(counter);
                    done.incrementAndGet();
                }
            });
            assertThat(counters.getExact(counter)).isEqualTo((long) threads * perThread);
            assertThat(shardCounts(store()).shardCount(CounterName.of(counter))).hasValue(64);
            // Increments after the growth spread over the new shards.
            for (int i = 0; i < 2_000; i++) {
                counters.increment(counter);
            }
            assertThat(counters.admin().cells(counter)).hasSizeGreaterThan(32).hasSizeLessThanOrEqualTo(64);
            assertThat(counters.getExact(counter)).isEqualTo((long) threads * perThread + 2_000);
        }
    }

    @Test
    void shardCountIsPersistedNeverShrinksAndIsSeenByOtherNodes() {
        MutableClock clock = new MutableClock();
        String counter = name("config");
        ShardedSettings eight = ShardedSettings.defaults().withShards(8).withShardCountRefresh(Duration.ofSeconds(5));
        try (CounterService first = CounterService.builder(store())
                        .clock(clock)
                        .random(new SplittableRandom(1))
                        .defaultStrategy(eight)
                        .build();
                CounterService second = CounterService.builder(anotherStore())
                        .clock(clock)
                        .random(new SplittableRandom(2))
                        .defaultStrategy(eight.withShards(2))
                        .build()) {
            first.increment(counter);
            assertThat(shardCounts(store()).shardCount(CounterName.of(counter))).hasValue(8);
            // A node configured with fewer shards uses the persisted, larger count.
            for (int i = 0; i < 400; i++) {
                second.increment(counter);
            }
            assertThat(second.admin().cells(counter)).hasSize(8);
            // Growth made on one node reaches the other after its refresh interval.
            first.admin().growShards(counter, 32);
            assertThat(first.admin().growShards(counter, 16))
                    .as("never shrinks")
                    .isEqualTo(32);
            clock.advance(Duration.ofSeconds(6));
            for (int i = 0; i < 2_000; i++) {
                second.increment(counter);
            }
            assertThat(second.admin().cells(counter)).hasSizeGreaterThan(8);
            assertThat(second.getExact(counter)).isEqualTo(2_401);
        }
    }

    @Test
    void shardedCachedTotalIsStaleWithinItsExpiryAndExactAfter() {
        MutableClock clock = new MutableClock();
        String counter = name("cached");
        try (CounterService cached = CounterService.builder(store())
                        .clock(clock)
                        .defaultStrategy(ShardedSettings.defaults().withCachedTotalExpiry(Duration.ofSeconds(10)))
                        .build();
                CounterService elsewhere = service(anotherStore(), ShardedSettings.defaults())) {
            assertThat(cached.get(counter)).isZero();
            elsewhere.increment(counter, 5);
            assertThat(cached.get(counter)).as("stale within the expiry").isZero();
            cached.increment(counter, 1);
            assertThat(cached.get(counter))
                    .as("local increments update the cache")
                    .isEqualTo(1);
            assertThat(cached.getExact(counter))
                    .as("an exact read bypasses the cache")
                    .isEqualTo(6);
            elsewhere.increment(counter, 10);
            clock.advance(Duration.ofSeconds(9));
            assertThat(cached.get(counter)).isEqualTo(6);
            clock.advance(Duration.ofSeconds(2));
            assertThat(cached.get(counter)).as("exact after the expiry").isEqualTo(16);
        }
    }

    @Test
    void shardedCachedTotalsSharedByTwoServicesSeeBothServicesIncrements() {
        String counter = name("shared-total");
        SharedCaches caches = new SharedCaches();
        ShardedSettings settings = ShardedSettings.defaults().withCachedTotalExpiry(Duration.ofMinutes(1));
        try (CounterService first = service(store(), settings, caches);
                CounterService second = service(anotherStore(), settings, caches)) {
            assertThat(first.get(counter)).isZero();
            second.increment(counter, 5);
            assertThat(first.get(counter))
                    .as("the other service's increment reached the shared total")
                    .isEqualTo(5);
            first.increment(counter, 2);
            assertThat(second.get(counter)).isEqualTo(7);
            assertThat(caches.totals.expiries).containsOnly(Duration.ofMinutes(1));
        }
    }

    @Test
    void shardedIncrementsAreStoredAndReadWhileTheSharedTotalCacheIsDown() {
        String counter = name("cache-down");
        SharedCaches caches = new SharedCaches();
        ShardedSettings settings = ShardedSettings.defaults().withCachedTotalExpiry(Duration.ofMinutes(1));
        try (CounterService counters = service(store(), settings, caches)) {
            counters.increment(counter, 3);
            caches.totals.down = true;
            counters.increment(counter, 4);
            assertThat(counters.incrementAndGet(counter, 1)).isEqualTo(8);
            assertThat(counters.get(counter)).as("read from the store").isEqualTo(8);
            assertThat(counters.get(List.of(counter))).containsEntry(counter, 8L);
            caches.totals.down = false;
            assertThat(counters.get(counter)).isEqualTo(8);
        }
    }

    @Test
    void aSharedCacheThatKeepsFailingIsSkippedAtOnceBehindItsCircuitBreaker() {
        String counter = name("breaker");
        SharedCaches caches = new SharedCaches();
        caches.totals.down = true;
        caches.monotonic.down = true;
        ShardedSettings settings = ShardedSettings.defaults().withCachedTotalExpiry(Duration.ofMinutes(1));
        try (CounterService sharded = service(store(), settings, caches);
                CounterService monotonic = service(store(), MonotonicSettings.defaults(), caches)) {
            for (int i = 0; i < 20; i++) {
                sharded.increment(counter, 1);
            }
            assertThat(sharded.getExact(counter)).as("every increment stored").isEqualTo(20);
            assertThat(caches.totals.calls.get())
                    .as("calls to the cache once it kept failing")
                    .isLessThan(12);
            for (int i = 0; i < 5; i++) {
                assertThatThrownBy(() -> monotonic.incrementAndGet(counter + ".ids", 1))
                        .isInstanceOf(CacheUnavailableException.class);
            }
            int calls = caches.monotonic.calls.get();
            assertThatThrownBy(() -> monotonic.incrementAndGet(counter + ".ids", 1))
                    .isInstanceOf(CacheUnavailableException.class)
                    .hasMessageContaining("circuit breaker");
            assertThat(caches.monotonic.calls.get())
                    .as("no call while the breaker is open")
                    .isEqualTo(calls);
        }
    }

    /** A monotonic cache and a total cache shared by several services, as a Redis would be, that can fail or lose all. */
    static final class SharedCaches {

        final MapMonotonicCache monotonic = new MapMonotonicCache();
        final MapTotalCache totals = new MapTotalCache();

        /** Counts the calls to a cache, and fails them while {@link #down}. */
        abstract static class Reachable {

            final AtomicInteger calls = new AtomicInteger();
            volatile boolean down;

            void check() {
                calls.incrementAndGet();
                if (down) {
                    throw new CacheUnavailableException("cache down", new IOException("connection refused"));
                }
            }
        }

        static final class MapMonotonicCache extends Reachable implements MonotonicCache {

            private final Map<CounterName, long[]> values = new ConcurrentHashMap<>(); // {value, copy}
            private final AtomicLong copies = new AtomicLong();

            void clear() {
                values.clear();
            }

            @Override
            public OptionalLong get(CounterName name) {
                check();
                long[] held = values.get(name);
                return held == null ? OptionalLong.empty() : OptionalLong.of(held[0]);
            }

            @Override
            public OptionalLong tryLoad(CounterName name, LongSupplier stored) {
                check();
                long value = stored.getAsLong();
                return OptionalLong.of(
                        values.computeIfAbsent(name, key -> new long[] {value, copies.incrementAndGet()})[0]);
            }

            @Override
            public Optional<Added> addAndGet(CounterName name, long delta) {
                check();
                long[] sum = values.computeIfPresent(name, (key, held) -> new long[] {held[0] + delta, held[1]});
                return sum == null ? Optional.empty() : Optional.of(new Added(sum[0], sum[1]));
            }

            @Override
            public boolean holds(CounterName name, long copy) {
                long[] held = values.get(name);
                return held != null && held[1] == copy;
            }

            @Override
            public void remove(CounterName name) {
                values.remove(name);
            }
        }

        static final class MapTotalCache extends Reachable implements TotalCache {

            private final Map<CounterName, long[]> totals = new ConcurrentHashMap<>(); // {total, load id}
            private final AtomicLong loads = new AtomicLong();
            final Set<Duration> expiries = ConcurrentHashMap.newKeySet();

            @Override
            public OptionalLong get(CounterName name) {
                check();
                long[] total = totals.get(name);
                return total == null ? OptionalLong.empty() : OptionalLong.of(total[0]);
            }

            @Override
            public long put(CounterName name, long total, Duration expiry) {
                check();
                expiries.add(expiry);
                long loadId = loads.incrementAndGet();
                totals.put(name, new long[] {total, loadId});
                return loadId;
            }

            @Override
            public OptionalLong addIfLoaded(CounterName name, long delta, long loadId) {
                check();
                long[] total = totals.computeIfPresent(
                        name, (key, held) -> held[1] == loadId ? new long[] {held[0] + delta, loadId} : held);
                return total == null ? OptionalLong.empty() : OptionalLong.of(total[1]);
            }

            @Override
            public void remove(CounterName name) {
                check();
                totals.remove(name);
            }
        }
    }

    @Test
    void shardsAreValidatedAndOnlyShardedCountersHaveThem() {
        try (CounterService counters = service(store(), AtomicSettings.defaults());
                CounterService sharded = service(store(), ShardedSettings.defaults())) {
            assertThatThrownBy(() -> counters.admin().growShards(name("x"), 8))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("atomic strategy");
            assertThatThrownBy(() -> sharded.admin().growShards(name("x"), 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("between 1 and 1024");
            assertThatThrownBy(() -> sharded.admin().growShards(name("x"), 1025))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(shardCounts(store()).shardCount(CounterName.of(name("x"))))
                    .isEmpty();
        }
    }

    // ---- node ----

    private CounterService node(CounterStore store, NodeSettings settings) {
        return service(store, settings);
    }

    @Test
    void twoNodesInterleaveExactlyAndKeepTheirOwnRows() {
        String counter = name("nodes");
        String a = "a-" + prefix().substring(1, 9);
        String b = "b-" + prefix().substring(1, 9);
        try (CounterService nodeA = node(store(), NodeSettings.defaults().withNodeId(a));
                CounterService nodeB =
                        node(anotherStore(), NodeSettings.defaults().withNodeId(b))) {
            Concurrently.run(8, thread -> {
                CounterService mine = thread % 2 == 0 ? nodeA : nodeB;
                for (int i = 0; i < 1_000; i++) {
                    mine.increment(counter);
                }
            });
            assertThat(nodeA.get(counter)).isEqualTo(8_000);
            assertThat(nodeB.admin().cells(counter))
                    .containsOnly(Map.entry("n:" + a + ":+", 4_000L), Map.entry("n:" + b + ":+", 4_000L));
        }
    }

    @Test
    void aSecondLiveProcessWithTheSameNodeIdFailsFast() {
        String id = "same-" + prefix().substring(1, 9);
        CounterService first = node(store(), NodeSettings.defaults().withNodeId(id));
        assertThatThrownBy(() -> node(anotherStore(), NodeSettings.defaults().withNodeId(id)))
                .isInstanceOf(NodeIdInUseException.class)
                .hasMessageContaining("Node id '" + id + "' is held by another live process");
        first.increment(name("x"));
        first.close();
        try (CounterService second =
                node(anotherStore(), NodeSettings.defaults().withNodeId(id))) {
            second.increment(name("x"));
            assertThat(second.get(name("x")))
                    .as("a restarted node continues its row")
                    .isEqualTo(2);
            assertThat(second.admin().cells(name("x"))).hasSize(1);
        }
    }

    @Test
    void aNodeWhoseIdWasTakenOverStopsIncrementing() {
        MutableClock clock = new MutableClock();
        String id = "taken-" + prefix().substring(1, 9);
        NodeSettings settings = NodeSettings.defaults().withNodeId(id).withLeaseTtl(Duration.ofSeconds(1));
        try (CounterService paused = CounterService.builder(store())
                .clock(clock)
                .defaultStrategy(settings)
                .build()) {
            paused.increment(name("x"));
            clock.advance(Duration.ofSeconds(5)); // the holder stalled past its lease
            if (store().capability(SessionLocks.class).isPresent()) {
                // The claim is the holder's database session, which is alive: no expiry lets anybody else in.
                assertThatThrownBy(() -> CounterService.builder(anotherStore())
                                .clock(clock)
                                .defaultStrategy(settings)
                                .build())
                        .isInstanceOf(NodeIdInUseException.class);
                paused.increment(name("x"));
                assertThat(paused.get(name("x"))).isEqualTo(2);
                return;
            }
            try (CounterService successor = CounterService.builder(anotherStore())
                    .clock(clock)
                    .defaultStrategy(settings)
                    .build()) {
                successor.increment(name("x"));
                // Its next renewal finds the claim taken; from then on it refuses increments.
                await().atMost(Duration.ofSeconds(10))
                        .untilAsserted(() -> assertThatThrownBy(() -> paused.increment(name("probe")))
                                .isInstanceOf(NodeIdInUseException.class)
                                .hasMessageContaining("was claimed by another process"));
                assertThatThrownBy(() -> paused.increment(name("x"))).isInstanceOf(NodeIdInUseException.class);
                assertThat(successor.get(name("x"))).isEqualTo(2);
            }
        }
    }

    @Test
    void pnCounterDecrementsExactlyAndGCounterRefusesThem() {
        String counter = name("stock");
        try (CounterService pn = node(store(), NodeSettings.defaults())) {
            Concurrently.run(8, thread -> {
                for (int i = 0; i < 500; i++) {
                    pn.increment(counter, thread % 2 == 0 ? 3 : -1);
                }
            });
            assertThat(pn.get(counter)).isEqualTo(4 * 500 * 3 - 4 * 500);
            assertThat(pn.admin().cells(counter).values()).containsExactlyInAnyOrder(6_000L, -2_000L);
        }
        try (CounterService grow = node(store(), NodeSettings.defaults().withDecrements(false))) {
            grow.increment(name("g"), 2);
            assertThatThrownBy(() -> grow.increment(name("g"), -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("grow-only");
            assertThat(grow.get(name("g"))).isEqualTo(2);
        }
    }

    @Test
    void invalidNodeSettingsAreRefused() {
        assertThatThrownBy(() -> NodeSettings.defaults().withNodeId("bad id"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Node id 'bad id' is invalid");
        assertThatThrownBy(() -> NodeSettings.defaults().withLeaseTtl(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease-ttl");
    }

    // ---- buffered ----

    private static BufferedSettings quickFlushes() {
        return BufferedSettings.defaults()
                .withFlushInterval(Duration.ofMillis(50))
                .withShutdownTimeout(Duration.ofSeconds(20));
    }

    /**
     * A buffered increment of 1 is counted by its one add to the slot; the others, durable ones and incrementAndGet
     * also once. The count survives flushes and deletes, and never goes back while flushes move what slots hold.
     */
    @Test
    void bufferedCountsEachAcceptedIncrementOnceAndTheCountNeverGoesBack() throws Exception {
        BufferedSettings hourly = BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1));
        try (CounterService counters = service(store(), hourly)) {
            Counter a = counters.counter(name("counted.a"));
            for (int i = 0; i < 5; i++) {
                a.increment();
            }
            a.increment(7);
            counters.increment(name("counted.b"), -2);
            counters.incrementAndGet(name("counted.b"), 1);
            assertThat(counters.statistics().get(0).increments()).isEqualTo(8);
            assertThat(counters.statistics().get(0).activity().buffer().pendingIncrements())
                    .isEqualTo(8);
            counters.incrementDurably(name("counted.c"), 3).get(30, TimeUnit.SECONDS); // its flush takes them all
            assertThat(counters.statistics().get(0).increments()).isEqualTo(9);
            assertThat(counters.statistics().get(0).activity().buffer().pendingIncrements())
                    .isZero();
            counters.delete(name("counted.a"));
            a.increment();
            assertThat(counters.statistics().get(0).increments()).isEqualTo(10);
            assertThat(counters.statistics().get(0).activity().buffer().pendingIncrements())
                    .isEqualTo(1);
            counters.flush().get(30, TimeUnit.SECONDS);
            assertThat(counters.get(name("counted.a"))).isEqualTo(1);
        }
        BufferedSettings busy = BufferedSettings.defaults()
                .withFlushInterval(Duration.ofMillis(1))
                .withFlushThreshold(500);
        try (CounterService counters = service(store(), busy)) {
            AtomicLong lastSeen = new AtomicLong();
            AtomicInteger wentBack = new AtomicInteger();
            Thread watcher = TestThreads.start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    long seen = counters.statistics().get(0).increments();
                    if (seen < lastSeen.getAndSet(seen)) {
                        wentBack.incrementAndGet();
                    }
                }
            });
            int threads = 8;
            int perThread = 20_000;
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    counters.increment(name("counted.hot" + (i % 3)), i % 10 == 0 ? 2 : 1);
                }
            });
            watcher.interrupt();
            watcher.join();
            assertThat(wentBack).as("times the count went back").hasValue(0);
            assertThat(counters.statistics().get(0).increments()).isEqualTo((long) threads * perThread);
            counters.flush().get(30, TimeUnit.SECONDS);
            assertThat(counters.statistics().get(0).activity().buffer().pendingIncrements())
                    .isZero();
            assertThat(
                            counters
                                    .get(List.of(name("counted.hot0"), name("counted.hot1"), name("counted.hot2")))
                                    .values()
                                    .stream()
                                    .mapToLong(Long::longValue)
                                    .sum())
                    .isEqualTo(threads * perThread * 11L / 10);
        }
    }

    @Test
    void bufferedMillionsOfIncrementsAreExactAfterCloseWithFewStatements() {
        OutageStore counting = new OutageStore(store());
        int threads = 16;
        int perThread = 1_000_000;
        List<String> names = java.util.stream.IntStream.range(0, 10)
                .mapToObj(i -> name("buffered" + i))
                .toList();
        CounterService counters = service(counting, BufferedSettings.defaults());
        Concurrently.run(threads, thread -> {
            for (int i = 0; i < perThread; i++) {
                counters.increment(names.get((thread + i) % names.size()));
            }
        });
        counters.close();
        try (CounterService reader = service(anotherStore(), AtomicSettings.defaults())) {
            assertThat(reader.get(names).values()).containsOnly((long) threads * perThread / names.size());
        }
        // 16 million increments; each flush is one transaction of 11 statements at most.
        assertThat(counting.batches.get()).isPositive().isLessThanOrEqualTo(threads * perThread / 10_000);
    }

    @Test
    void bufferedReadsIncludeThisNodesPendingIncrementsAndOtherNodesSeeThemAfterAFlush() {
        String counter = name("pending");
        BufferedSettings slow = BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1));
        try (CounterService buffered = service(store(), slow);
                CounterService other = service(anotherStore(), AtomicSettings.defaults())) {
            buffered.increment(counter, 5);
            assertThat(buffered.get(counter)).isEqualTo(5);
            assertThat(buffered.incrementAndGet(counter, 2)).isEqualTo(7);
            assertThat(other.get(counter)).as("not flushed yet").isZero();
            other.increment(counter, 100);
            assertThat(buffered.get(counter)).as("durable plus pending").isEqualTo(107);
            buffered.incrementDurably(counter, 1).join();
            assertThat(other.get(counter))
                    .as("a durable increment flushes what was pending")
                    .isEqualTo(108);
        }
    }

    @Test
    void durableIncrementsShareCommits() {
        OutageStore counting = new OutageStore(store());
        String counter = name("durable");
        BufferedSettings slow = BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1));
        try (CounterService counters = service(counting, slow)) {
            Concurrently.run(16, thread -> {
                for (int i = 0; i < 50; i++) {
                    counters.incrementDurably(counter, 1).get(30, TimeUnit.SECONDS);
                }
            });
            try (CounterService reader = service(anotherStore(), AtomicSettings.defaults())) {
                assertThat(reader.get(counter)).isEqualTo(800);
            }
            assertThat(counting.batches.get()).isLessThanOrEqualTo(800);
        }
    }

    @Test
    void bufferedKeepsCountingThroughAnOutageUpToItsBoundAndCatchesUp() throws Exception {
        OutageStore flaky = new OutageStore(store());
        BufferedSettings bounded = quickFlushes().withMaxPendingCounters(3);
        try (CounterService counters = service(flaky, bounded)) {
            flaky.down = true;
            for (int i = 0; i < 1_000; i++) {
                counters.increment(name("a"));
                counters.increment(name("b"), 2);
            }
            counters.increment(name("c"));
            await().atMost(Duration.ofSeconds(10)).until(() -> flaky.failedBatches.get() >= 1);
            StrategyStatistics.BufferActivity failing =
                    counters.statistics().get(0).activity().buffer();
            assertThat(failing.failing()).isTrue();
            assertThat(failing.lastFailure()).contains("the store is down");
            assertThat(failing.full()).isTrue();
            assertThat(failing.pendingCounters()).isEqualTo(3);
            assertThat(failing.failedFlushes()).isPositive();
            assertThat(failing.flushLag()).isPositive();
            assertThatThrownBy(() -> counters.increment(name("d")))
                    .isInstanceOf(BufferFullException.class)
                    .hasMessageContaining("max-pending-counters")
                    .hasMessageContaining("the store is down");
            CompletableFuture<Void> durable = counters.incrementDurably(name("a"), 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> flaky.failedBatches.get() >= 2);
            assertThat(durable).isNotDone();
            for (int i = 0; i < 1_000; i++) {
                counters.increment(name("a")); // existing counters keep counting during the outage
            }
            flaky.down = false;
            durable.get(30, TimeUnit.SECONDS);
            counters.increment(name("d")); // room again once the flush went through
            StrategyStatistics.BufferActivity recovered =
                    counters.statistics().get(0).activity().buffer();
            assertThat(recovered.failing()).isFalse();
            assertThat(recovered.flushes()).isPositive();
        }
        try (CounterService reader = service(anotherStore(), AtomicSettings.defaults())) {
            assertThat(reader.get(List.of(name("a"), name("b"), name("c"), name("d")))
                            .values())
                    .containsExactly(2_001L, 2_000L, 1L, 1L);
        }
    }

    @Test
    void flushWritesWhatIsPendingWithoutWaitingForTheInterval() throws Exception {
        List<String> threads = new ArrayList<>();
        ThreadFactory recording = task -> {
            Thread thread = new Thread(task);
            threads.add("created");
            return thread;
        };
        BufferedSettings hourly = BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1));
        try (CounterService counters = CounterService.builder(store())
                        .defaultStrategy(hourly)
                        .threadFactory(recording)
                        .build();
                CounterService reader = service(anotherStore(), AtomicSettings.defaults())) {
            counters.increment(name("flushed"), 7);
            assertThat(reader.get(name("flushed"))).isZero();
            counters.flush().get(30, TimeUnit.SECONDS);
            assertThat(reader.get(name("flushed"))).isEqualTo(7);
            assertThat(counters.statistics().get(0).activity().buffer().flushes())
                    .isEqualTo(1);
        }
        // The flusher and the thread that completed the flush; on a store that tells the database's clock, also the
        // housekeeping thread that reads it.
        assertThat(threads)
                .as("the service's threads came from the thread factory")
                .hasSize(store().capability(DatabaseClock.class).isPresent() ? 3 : 2);
    }

    @Test
    void aFullBufferCanMakeCallersWaitForRoomButNeverForever() {
        OutageStore flaky = new OutageStore(store());
        BufferedSettings blocking = quickFlushes()
                .withMaxPendingCounters(1)
                .withWhenFull(BufferedSettings.WhenFull.BLOCK, Duration.ofMillis(300));
        try (CounterService counters = service(flaky, blocking)) {
            flaky.down = true;
            counters.increment(name("a"));
            long started = System.nanoTime();
            assertThatThrownBy(() -> counters.increment(name("b"))).isInstanceOf(BufferFullException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
            flaky.down = false;
            await().atMost(Duration.ofSeconds(10))
                    .ignoreException(BufferFullException.class)
                    .until(() -> {
                        counters.increment(name("b"));
                        return true;
                    });
        }
        try (CounterService reader = service(anotherStore(), AtomicSettings.defaults())) {
            assertThat(reader.get(name("a"))).isEqualTo(1);
            assertThat(reader.get(name("b"))).isPositive();
        }
    }

    /** Each pending key is a row for the flush: they are bounded like counters, so a backlog cannot grow unbounded. */
    @Test
    void pendingIdempotencyKeysAreBoundedLikeCountersAndWrittenOnceTheStoreIsBack() {
        OutageStore flaky = new OutageStore(store());
        try (CounterService counters = service(flaky, quickFlushes().withMaxPendingCounters(3))) {
            flaky.down = true;
            for (int i = 0; i < 3; i++) {
                counters.increment(name("keyed-bounded"), 1, IdempotencyKey.of(prefix() + "bounded-" + i));
            }
            assertThatThrownBy(() ->
                            counters.increment(name("keyed-bounded"), 1, IdempotencyKey.of(prefix() + "bounded-3")))
                    .isInstanceOf(BufferFullException.class)
                    .hasMessageContaining("3 idempotency keys");
            counters.increment(
                    name("keyed-bounded"), 1, IdempotencyKey.of(prefix() + "bounded-0")); // a repeat: no room
            flaky.down = false;
            await().atMost(Duration.ofSeconds(10))
                    .ignoreException(BufferFullException.class)
                    .until(() -> {
                        counters.increment(name("keyed-bounded"), 1, IdempotencyKey.of(prefix() + "bounded-3"));
                        return true;
                    });
            counters.flush().join();
            assertThat(counters.getExact(name("keyed-bounded"))).isEqualTo(4);
        }
    }

    @Test
    void aBufferedCounterThatWouldOverflowIsDroppedAndTheOthersAreWritten() {
        try (CounterService atomic = service(store(), AtomicSettings.defaults())) {
            atomic.increment(name("full"), Long.MAX_VALUE - 1);
        }
        try (CounterService buffered = service(store(), quickFlushes())) {
            buffered.increment(name("full"), 5);
            buffered.increment(name("fine"), 5);
        }
        try (CounterService reader = service(anotherStore(), AtomicSettings.defaults())) {
            assertThat(reader.get(name("full"))).isEqualTo(Long.MAX_VALUE - 1);
            assertThat(reader.get(name("fine"))).isEqualTo(5);
        }
    }

    @Test
    void closingWhileTheStoreIsDownGivesUpAfterTheShutdownTimeout() {
        OutageStore flaky = new OutageStore(store());
        BufferedSettings shortShutdown = quickFlushes().withShutdownTimeout(Duration.ofMillis(500));
        CounterService counters = service(flaky, shortShutdown);
        flaky.down = true;
        counters.increment(name("lost"));
        long started = System.nanoTime();
        counters.close();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertThatThrownBy(() -> counters.increment(name("lost"))).isInstanceOf(IllegalStateException.class);
    }

    // ---- delta-log ----

    @Test
    void twoNodesAppendAndRecountConcurrentlyAndStayExact() {
        String counter = name("log");
        DeltaLogSettings eager = DeltaLogSettings.defaults().withRecountAtDeltas(20);
        try (CounterService first = service(store(), eager);
                CounterService second = service(anotherStore(), eager)) {
            Concurrently.run(8, thread -> {
                CounterService mine = thread % 2 == 0 ? first : second;
                for (int i = 0; i < 500; i++) {
                    mine.increment(counter, thread % 3 == 0 ? -1 : 2);
                    if (i % 100 == 0) {
                        assertThat(mine.getExact(counter)).isBetween(-4_000L, 8_000L);
                    }
                }
            });
            long expected = 0;
            for (int thread = 0; thread < 8; thread++) {
                expected += 500L * (thread % 3 == 0 ? -1 : 2);
            }
            assertThat(first.getExact(counter)).isEqualTo(expected);
            long wanted = expected;
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                first.increment(counter, 1);
                second.increment(counter, -1);
                assertThat(deltaLog(store())
                                .unfoldedDeltas(CounterName.of(counter), 1_000)
                                .size())
                        .isLessThan(100);
            });
            assertThat(second.getExact(counter)).isEqualTo(wanted);
        }
    }

    @Test
    void deltaLogCanReadTheFoldedValueOnlyWhenStalenessIsAccepted() {
        String counter = name("folded");
        MutableClock clock = new MutableClock();
        DeltaLogSettings folded = DeltaLogSettings.defaults()
                .withReadFolded(true)
                .withRecountAfter(Duration.ofSeconds(1))
                .withRecountAtDeltas(1_000_000);
        try (CounterService counters = CounterService.builder(store())
                .clock(clock)
                .defaultStrategy(folded)
                .build()) {
            counters.increment(counter, 3);
            counters.increment(counter, 4);
            assertThat(counters.getExact(counter)).isEqualTo(7);
            assertThat(counters.get(counter)).as("folded only, stale").isLessThanOrEqualTo(7);
            clock.advance(Duration.ofSeconds(2));
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(counters.get(counter))
                            .as("recounted after a second")
                            .isEqualTo(7));
            assertThat(deltaLog(store())
                            .unfoldedDeltas(CounterName.of(counter), 1_000)
                            .size())
                    .isZero();
        }
    }

    // ---- monotonic ----

    @Test
    void monotonicHandsOutStrictlyIncreasingUniqueValues() {
        String counter = name("ids");
        int threads = 8;
        List<List<Long>> seen = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            seen.add(new ArrayList<>());
        }
        try (CounterService counters = service(store(), MonotonicSettings.defaults())) {
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < 500; i++) {
                    seen.get(thread).add(counters.incrementAndGet(counter, 1));
                }
            });
            HashSet<Long> all = new HashSet<>();
            for (List<Long> values : seen) {
                assertThat(values).isSorted().doesNotHaveDuplicates();
                all.addAll(values);
            }
            assertThat(all).hasSize(threads * 500);
            assertThat(counters.get(counter)).isEqualTo(threads * 500L);
        }
    }

    @Test
    void monotonicWithChanceOneContinuesAboveEveryValueAfterARestart() {
        String counter = name("restart");
        long highest;
        try (CounterService first = service(store(), MonotonicSettings.defaults())) {
            highest = 0;
            for (int i = 0; i < 200; i++) {
                highest = first.incrementAndGet(counter, 1 + i % 3);
            }
        }
        try (CounterService restarted = service(anotherStore(), MonotonicSettings.defaults())) {
            assertThat(restarted.get(counter)).isEqualTo(highest);
            assertThat(restarted.incrementAndGet(counter, 1)).isGreaterThan(highest);
        }
    }

    @Test
    void monotonicDropsAValueWhoseCachedCopyWasLostWhileItWasWritten() {
        String counter = name("lost-copy");
        SharedCaches caches = new SharedCaches();
        AtomicReference<CounterService> otherNode = new AtomicReference<>();
        AtomicLong handedOutMeanwhile = new AtomicLong();
        AtomicBoolean lostOnce = new AtomicBoolean();
        ForwardingCounterStore losing = new ForwardingCounterStore(store()) {
            @Override
            public void raiseShard(CounterName name, int shard, long value) {
                if (value == 3 && lostOnce.compareAndSet(false, true)) {
                    // The shared cache restarts before 3 is stored; another node loads the maximum (2) and goes on.
                    caches.monotonic.clear();
                    handedOutMeanwhile.set(otherNode.get().incrementAndGet(counter, 1));
                }
                super.raiseShard(name, shard, value);
            }
        };
        try (CounterService counters = service(losing, MonotonicSettings.defaults(), caches);
                CounterService other = service(anotherStore(), MonotonicSettings.defaults(), caches)) {
            otherNode.set(other);
            counters.incrementAndGet(counter, 2);
            long value = counters.incrementAndGet(counter, 1);
            assertThat(handedOutMeanwhile.get()).isEqualTo(3);
            assertThat(value)
                    .as("3 was handed out meanwhile from the reloaded cache")
                    .isEqualTo(4);
            assertThat(counters.statistics())
                    .singleElement()
                    .satisfies(statistics -> assertThat(statistics.activity().conflicts())
                            .as("the value dropped")
                            .isEqualTo(1));
        }
    }

    @Test
    void monotonicCountersOnOneSharedCacheHandOutEachValueOnce() {
        String counter = name("shared");
        SharedCaches caches = new SharedCaches();
        Set<Long> values = ConcurrentHashMap.newKeySet();
        try (CounterService first = service(store(), MonotonicSettings.defaults(), caches);
                CounterService second = service(anotherStore(), MonotonicSettings.defaults(), caches)) {
            Concurrently.run(4, thread -> {
                CounterService node = thread % 2 == 0 ? first : second;
                for (int i = 0; i < 300; i++) {
                    assertThat(values.add(node.incrementAndGet(counter, 1))).isTrue();
                    if (thread == 0 && i % 100 == 50) {
                        caches.monotonic.clear(); // the shared cache lost under load
                    }
                }
            });
            assertThat(values).hasSize(1_200);
            assertThat(Collections.max(values)).isGreaterThanOrEqualTo(1_200);
        }
    }

    @Test
    void monotonicWithChanceZeroForgetsItsValueAtRestartAsDocumented() {
        String counter = name("volatile");
        try (CounterService first =
                service(store(), MonotonicSettings.defaults().withChanceToWrite(0.0))) {
            assertThat(first.incrementAndGet(counter, 10)).isEqualTo(10);
        }
        try (CounterService restarted = service(store(), MonotonicSettings.defaults())) {
            assertThat(restarted.get(counter)).isZero();
        }
    }

    @Test
    void monotonicChecksItsArguments() {
        try (CounterService counters = service(store(), MonotonicSettings.defaults())) {
            assertThatThrownBy(() -> counters.increment(name("m"), -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("monotonic: delta must be > 0");
            assertThat(counters.get(name("m"))).isZero();
        }
        assertThatThrownBy(() -> MonotonicSettings.defaults().withChanceToWrite(1.5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("monotonic chance-to-write must be between 0.0 and 1.0, was 1.5");
        assertThatThrownBy(() -> MonotonicSettings.defaults().withChanceToWrite(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MonotonicSettings.defaults().withShards(0)).hasMessageContaining("between 1 and 999");
        assertThatThrownBy(() -> MonotonicSettings.defaults().withShards(1_000)).hasMessageContaining("was 1000");
    }
}
