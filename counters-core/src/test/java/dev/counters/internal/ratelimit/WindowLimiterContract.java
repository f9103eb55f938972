package dev.counters.internal.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.RateDecision;
import dev.counters.RateDecision.Outcome;
import dev.counters.RateLimit;
import dev.counters.contract.BoundedStrategyContract;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.contract.MutableClock;
import dev.counters.contract.StoreFixture;
import dev.counters.internal.Observations;
import dev.counters.internal.Threads;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Escrow;
import dev.counters.spi.Escrow.Bounds;
import dev.counters.spi.Escrow.EscrowState;
import dev.counters.strategy.BoundedSettings;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What the windows of rate limiters (fixed, calendar, sliding) must do on every store: exact admission per window
 * with many threads on two nodes, calendar windows in a zone across DST and month ends, the sliding bound over every
 * {@code S} consecutive slices under load that crosses slices, the seal keeping the bounded invariant, the purge of
 * ended windows only. Time is steady time moved by hand (a ticker), never waited on. Each store runs it through a
 * subclass of a few lines.
 */
public abstract class WindowLimiterContract {

    private final StoreFixture fixture;
    /** Steady time is the clock at start plus this ticker: the tests move it. */
    private final AtomicLong ticker = new AtomicLong();

    private final List<WindowLimiter> opened = new ArrayList<>();
    private String limiter = "";

    protected WindowLimiterContract(StoreFixture fixture) {
        this.fixture = fixture;
    }

    @BeforeEach
    void uniqueLimiter() {
        limiter = "w" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void closeAndCheckTheInvariant() {
        opened.forEach(WindowLimiter::close);
        Escrow escrow = escrow(fixture.store());
        for (CounterName name : fixture.store().counterNames(limiter + ":", null, 100_000)) {
            BoundedStrategyContract.checkInvariant(escrow, name);
        }
    }

    /** Allowances from the first change, small refills: refills, pool mode and collects all happen. */
    private static final BoundedSettings ESCROW = BoundedSettings.defaults()
            .withEscrowAbove(0)
            .withRefills(Duration.ofMillis(200), 4, 50)
            .withSweepInterval(Duration.ofMillis(100));

    /** A limiter of windows on {@code store} (a node of its own) whose steady time starts at {@code start}. */
    private WindowLimiter limiter(CounterStore store, RateLimit limit, Instant start) {
        return limiter(store, limit, start, ticker::get);
    }

    /** As {@link #limiter(CounterStore, RateLimit, Instant)}, its steady time moved by a ticker of its own. */
    private WindowLimiter limiter(CounterStore store, RateLimit limit, Instant start, LongSupplier ownTicker) {
        StrategyContext context = new StrategyContext(
                store,
                new Time(new MutableClock(start), ownTicker),
                new SplittableRandom(1),
                UniqueIds.create(),
                Threads.daemon("test-"),
                RetryRegistry.ofDefaults(),
                CircuitBreakerRegistry.ofDefaults(),
                Observations.NONE,
                limiter,
                "rate-limit");
        WindowLimiter created = (WindowLimiter) WindowLimiter.create(context, limiter, limit, ESCROW);
        opened.add(created);
        return created;
    }

    private void advance(Duration by) {
        ticker.addAndGet(by.toNanos());
    }

    private static Escrow escrow(CounterStore store) {
        return store.capability(Escrow.class).orElseThrow();
    }

    private long value(Instant start, String key, RateLimit limit) {
        return escrow(fixture.store())
                .state(RateWindows.name(limiter, key, start), Instant.now())
                .map(EscrowState::value)
                .orElse(0L);
    }

    // ---- fixed windows ----

    @Test
    void aWindowAdmitsExactlyItsPermitsUnderManyThreadsOnTwoNodes() throws Exception {
        Instant start = Instant.parse("2026-05-01T10:00:00Z");
        RateLimit limit = RateLimit.of(1_000, Duration.ofMinutes(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);
        WindowLimiter one = limiter(fixture.store(), limit, start);
        WindowLimiter two = limiter(fixture.anotherStore(), limit, start);
        for (int window = 0; window < 2; window++) {
            long admitted = hammer(List.of(one, two), "hot", 16, 200, limit.permits());
            assertThat(admitted).as("window " + window).isEqualTo(1_000);
            assertThat(value(new RateWindows(limit).start(start.plus(Duration.ofMinutes(window))), "hot", limit))
                    .isEqualTo(1_000);
            advance(Duration.ofMinutes(1));
        }
        for (WindowLimiter node : List.of(one, two)) {
            assertThat(node.strategy().activity().escrow().refills())
                    .as("the hot key took node allowances")
                    .isPositive();
        }
    }

    /**
     * {@code threads} threads over the limiters take one permit {@code tries} times each; how many were admitted. No
     * admission says more remain than the permits less the admissions that ended before it began.
     */
    private static long hammer(List<WindowLimiter> limiters, String key, int threads, int tries, long permits)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        AtomicLong ended = new AtomicLong();
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Long>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                WindowLimiter on = limiters.get(t % limiters.size());
                done.add(pool.submit(() -> {
                    go.await();
                    long admitted = 0;
                    for (int i = 0; i < tries; i++) {
                        long before = ended.get();
                        RateDecision decision = on.tryAcquire(key, 1);
                        assertThat(decision.outcome()).isIn(Outcome.ALLOWED, Outcome.REFUSED);
                        if (decision.allowed()) {
                            assertThat(decision.remaining())
                                    .as("remaining, never over-stated")
                                    .isLessThanOrEqualTo(permits - before - 1);
                            admitted++;
                            ended.incrementAndGet();
                        }
                    }
                    return admitted;
                }));
            }
            go.countDown();
            long admitted = 0;
            for (Future<Long> f : done) {
                admitted += f.get(60, TimeUnit.SECONDS);
            }
            return admitted;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aDecisionSaysWhatIsLeftAndWhenTheWindowEnds() {
        Instant start = Instant.parse("2026-05-01T10:00:20Z");
        RateLimit limit = RateLimit.of(5, Duration.ofMinutes(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);
        WindowLimiter windows = limiter(fixture.store(), limit, start);

        RateDecision first = windows.tryAcquire("k", 3);
        assertThat(first.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(first.remaining()).isEqualTo(2);
        assertThat(first.retryAfter()).isZero();
        assertThat(first.resetAfter()).isEqualTo(Duration.ofSeconds(40));
        assertThat(first.limit()).isEqualTo(limit);

        RateDecision refused = windows.tryAcquire("k", 3);
        assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(refused.remaining()).isEqualTo(2);
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(40));
        assertThat(windows.peek("k").remaining()).isEqualTo(2);
        assertThat(windows.tryAcquire("k", 2).remaining()).isZero();
        assertThat(windows.peek("k").outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(windows.tryAcquire("other", 5).outcome()).isEqualTo(Outcome.ALLOWED);

        advance(Duration.ofSeconds(40)); // the next window: the whole limit again
        assertThat(windows.peek("k").remaining()).isEqualTo(5);
        RateDecision next = windows.tryAcquire("k", 5);
        assertThat(next.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(next.resetAfter()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void aRefusalIsRememberedUntilTheWindowEndsForThatManyPermitsOrMore() {
        Instant start = Instant.parse("2026-05-01T10:00:30Z");
        RateLimit limit = RateLimit.of(5, Duration.ofMinutes(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);
        AtomicLong writes = new AtomicLong();
        CounterStore counting = new ForwardingCounterStore(fixture.store()) {
            @Override
            public Optional<EscrowState> changeAndGet(
                    CounterName counter, String cell, long value, long down, long up, Instant now) {
                writes.incrementAndGet();
                return super.changeAndGet(counter, cell, value, down, up, now);
            }
        };
        WindowLimiter windows = limiter(counting, limit, start);
        windows.tryAcquire("k", 3);
        assertThat(windows.tryAcquire("k", 3).outcome()).isEqualTo(Outcome.REFUSED);
        long asked = writes.get();
        RateDecision remembered = windows.tryAcquire("k", 4);
        assertThat(remembered.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(remembered.remaining()).isZero(); // never more than it has: the room only shrank since
        assertThat(remembered.retryAfter()).isEqualTo(Duration.ofSeconds(30));
        assertThat(writes.get()).as("no statement").isEqualTo(asked);
        assertThat(windows.tryAcquire("k", 2).outcome()).isEqualTo(Outcome.ALLOWED); // fewer permits: asked
        assertThat(writes.get()).isGreaterThan(asked);
        advance(Duration.ofSeconds(30));
        assertThat(windows.tryAcquire("k", 3).outcome()).isEqualTo(Outcome.ALLOWED); // a new window
    }

    @Test
    void resetGivesTheWholeLimitBack() {
        Instant start = Instant.parse("2026-05-01T10:00:00Z");
        RateLimit limit = RateLimit.of(2, Duration.ofMinutes(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);
        WindowLimiter windows = limiter(fixture.store(), limit, start);
        windows.tryAcquire("k", 2);
        assertThat(windows.tryAcquire("k", 1).outcome()).isEqualTo(Outcome.REFUSED); // remembered until the end
        windows.reset("k");
        assertThat(windows.tryAcquire("k", 2).outcome()).isEqualTo(Outcome.ALLOWED);
    }

    @Test
    void aPermitCommittedAfterItsWindowEndedCountsInTheWindowOfNow() {
        Instant start = Instant.parse("2026-05-01T10:00:59Z");
        RateLimit limit = RateLimit.of(10, Duration.ofMinutes(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);
        AtomicBoolean pause = new AtomicBoolean(true);
        CounterStore slow = new ForwardingCounterStore(fixture.store()) {
            @Override
            public Optional<EscrowState> changeAndGet(
                    CounterName counter, String cell, long value, long down, long up, Instant now) {
                Optional<EscrowState> after = super.changeAndGet(counter, cell, value, down, up, now);
                if (value > 0 && pause.getAndSet(false)) {
                    advance(Duration.ofSeconds(2)); // the caller paused past the window's end
                }
                return after;
            }
        };
        WindowLimiter windows = limiter(slow, limit, start);
        RateDecision decision = windows.tryAcquire("k", 4);
        assertThat(decision.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(decision.resetAfter()).isEqualTo(Duration.ofSeconds(59));
        RateWindows arithmetic = new RateWindows(limit);
        assertThat(value(arithmetic.start(start), "k", limit)).as("given back").isZero();
        assertThat(value(arithmetic.end(arithmetic.start(start)), "k", limit)).isEqualTo(4);
    }

    @Test
    @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a decision never loops without end
    void decisionsThatAllOutliveTheirWindowEndTakingNothing() {
        Instant start = Instant.parse("2026-05-01T10:00:00Z");
        RateLimit limit = RateLimit.of(10, Duration.ofSeconds(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);
        CounterStore slow = new ForwardingCounterStore(fixture.store()) {
            @Override
            public Optional<EscrowState> changeAndGet(
                    CounterName counter, String cell, long value, long down, long up, Instant now) {
                Optional<EscrowState> after = super.changeAndGet(counter, cell, value, down, up, now);
                if (value > 0) {
                    advance(Duration.ofSeconds(1)); // every write outlives its window
                }
                return after;
            }
        };
        WindowLimiter windows = limiter(slow, limit, start);
        assertThatThrownBy(() -> windows.tryAcquire("k", 1))
                .isInstanceOfSatisfying(
                        dev.counters.CounterContentionException.class,
                        e -> assertThat(e.mayHaveBeenApplied()).isFalse());
        for (CounterName name : fixture.store().counterNames(limiter + ":", null, 100)) {
            assertThat(escrow(fixture.store())
                            .state(name, Instant.now())
                            .orElseThrow()
                            .value())
                    .as(name + ", given back")
                    .isZero();
        }
    }

    // ---- calendar quotas ----

    @Test
    void aMonthInBerlinStartsAtItsMidnightAcrossDaylightSavingTime() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        RateLimit limit = RateLimit.perCalendar(3, RateLimit.CalendarUnit.MONTH, berlin);
        // 31 March 2026, 23:30 in Berlin (summer time since the 29th): half an hour before April.
        Instant start = Instant.parse("2026-03-31T21:30:00Z");
        WindowLimiter quota = limiter(fixture.store(), limit, start);

        assertThat(quota.tryAcquire("acct", 3).resetAfter()).isEqualTo(Duration.ofMinutes(30));
        RateDecision refused = quota.tryAcquire("acct", 1);
        assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofMinutes(30));

        advance(Duration.ofMinutes(30)); // April in Berlin, still March in UTC
        RateDecision april = quota.tryAcquire("acct", 3);
        assertThat(april.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(april.resetAfter()).isEqualTo(Duration.ofDays(30)); // to 1 May 00:00 CEST, no change of offset
        assertThat(quota.tryAcquire("acct", 1).outcome()).isEqualTo(Outcome.REFUSED);

        RateWindows months = new RateWindows(limit);
        // March in Berlin: 1 March 00:00 CET to 1 April 00:00 CEST, one hour short of 31 days.
        Instant march = months.start(Instant.parse("2026-03-15T12:00:00Z"));
        assertThat(march).isEqualTo(Instant.parse("2026-02-28T23:00:00Z"));
        assertThat(Duration.between(march, months.end(march)))
                .isEqualTo(Duration.ofDays(31).minusHours(1));
        // October: one hour longer (summer time ends on the 25th).
        Instant october = months.start(Instant.parse("2026-10-31T22:59:59Z"));
        assertThat(october).isEqualTo(Instant.parse("2026-09-30T22:00:00Z"));
        assertThat(Duration.between(october, months.end(october)))
                .isEqualTo(Duration.ofDays(31).plusHours(1));
        // The last day of February is February's.
        assertThat(months.start(Instant.parse("2026-02-28T22:59:59Z")))
                .isEqualTo(Instant.parse("2026-01-31T23:00:00Z"));
    }

    @Test
    void daysAndWeeksInAZone() {
        ZoneId berlin = ZoneId.of("Europe/Berlin");
        RateWindows days = new RateWindows(RateLimit.perCalendar(1, RateLimit.CalendarUnit.DAY, berlin));
        Instant dstDay = days.start(Instant.parse("2026-03-29T12:00:00Z"));
        assertThat(dstDay).isEqualTo(Instant.parse("2026-03-28T23:00:00Z"));
        assertThat(Duration.between(dstDay, days.end(dstDay))).isEqualTo(Duration.ofHours(23));
        RateWindows weeks = new RateWindows(RateLimit.perCalendar(1, RateLimit.CalendarUnit.WEEK, berlin));
        // Sunday 29 March 2026 belongs to the week of Monday 23 March.
        assertThat(weeks.start(Instant.parse("2026-03-29T21:00:00Z"))).isEqualTo(Instant.parse("2026-03-22T23:00:00Z"));
        assertThat(weeks.start(Instant.parse("2026-03-29T22:00:00Z"))).isEqualTo(Instant.parse("2026-03-29T22:00:00Z"));
        RateWindows minutes =
                new RateWindows(RateLimit.of(1, Duration.ofMinutes(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW));
        assertThat(minutes.start(Instant.parse("2026-03-29T21:00:59.999Z")))
                .isEqualTo(Instant.parse("2026-03-29T21:00:00Z"));
    }

    // ---- sliding windows ----

    @Test
    void slidingWindowsNeverAdmitMoreThanThePermitsInAnySConsecutiveSlices() throws Exception {
        int slices = 4;
        RateLimit limit = RateLimit.of(40, Duration.ofSeconds(4))
                .withAlgorithm(RateLimit.Algorithm.SLIDING_WINDOW)
                .withSubWindows(slices);
        Instant start = Instant.parse("2026-05-01T10:00:00Z");
        WindowLimiter one = limiter(fixture.store(), limit, start);
        WindowLimiter two = limiter(fixture.anotherStore(), limit, start);
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong admitted = new AtomicLong();
        AtomicLong decided = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> load = new ArrayList<>();
        try {
            for (int t = 0; t < 8; t++) {
                WindowLimiter on = t % 2 == 0 ? one : two;
                long permits = 1 + (t / 2) % 2;
                load.add(pool.submit(() -> {
                    while (running.get()) {
                        try {
                            if (on.tryAcquire("hot", permits).allowed()) {
                                admitted.addAndGet(permits);
                            }
                        } catch (CounterContentionException outlivedItsWindows) {
                            // Time moves fast here: nothing taken, and the limiter answers it by its rule.
                        }
                        decided.incrementAndGet();
                    }
                    return null;
                }));
            }
            // 30 slices, the load running across every boundary: time moves by decisions made, not by real time,
            // so that a slow store's decisions do not all outlive their slice.
            for (int step = 0; step < 120; step++) {
                long seen = decided.get();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (decided.get() < seen + 16 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertThat(decided.get()).as("decisions made within 10 s").isGreaterThan(seen);
                advance(Duration.ofMillis(250));
            }
        } finally {
            running.set(false);
            for (Future<?> f : load) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdownNow();
        }
        RateWindows arithmetic = new RateWindows(limit);
        Map<Instant, Long> perSlice = new TreeMap<>();
        for (CounterName name : fixture.store().counterNames(limiter + ":", null, 10_000)) {
            Instant slice = RateWindows.start(name).orElseThrow();
            perSlice.put(
                    slice,
                    escrow(fixture.store())
                            .state(name, Instant.now())
                            .orElseThrow()
                            .value());
        }
        long counted = perSlice.values().stream().mapToLong(Long::longValue).sum();
        assertThat(counted).as("every admitted permit counted in a slice").isEqualTo(admitted.get());
        long fullest = 0;
        for (Instant first : perSlice.keySet()) {
            long sum = 0;
            for (int i = 0; i < slices; i++) {
                sum += perSlice.getOrDefault(arithmetic.before(first, -i), 0L);
            }
            assertThat(sum).as("the " + slices + " slices from " + first).isLessThanOrEqualTo(40);
            fullest = Math.max(fullest, sum);
        }
        assertThat(fullest).as("the load reached the limit").isEqualTo(40);
    }

    @Test
    void aSlidingWindowGivesASliceWhatThePreviousSlicesLeft() {
        RateLimit limit = RateLimit.of(10, Duration.ofSeconds(3))
                .withAlgorithm(RateLimit.Algorithm.SLIDING_WINDOW)
                .withSubWindows(3);
        Instant start = Instant.parse("2026-05-01T10:00:00Z");
        WindowLimiter sliding = limiter(fixture.store(), limit, start);
        assertThat(sliding.tryAcquire("k", 6).allowed()).isTrue(); // slice 0
        advance(Duration.ofSeconds(1));
        assertThat(sliding.tryAcquire("k", 4).remaining()).isZero(); // slice 1: 10 - 6
        RateDecision refused = sliding.tryAcquire("k", 1);
        assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
        assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(1));
        advance(Duration.ofSeconds(1));
        assertThat(sliding.tryAcquire("k", 1).outcome()).isEqualTo(Outcome.REFUSED); // slice 2: 10 - 6 - 4
        advance(Duration.ofSeconds(1));
        RateDecision third = sliding.tryAcquire("k", 6); // slice 3: slice 0 left the window
        assertThat(third.outcome()).isEqualTo(Outcome.ALLOWED);
        assertThat(third.remaining()).isZero();
        assertThat(sliding.peek("k").remaining()).isZero();
        advance(Duration.ofSeconds(1));
        assertThat(sliding.peek("k").remaining()).isEqualTo(4); // slice 4: 10 - 0 - 6
    }

    @Test
    void aBindOvertakenByTheSealOfItsSliceLeavesTheSealAndDecidesInTheSliceOfNow() {
        RateDecision decision = decidedByABindOvertakenByASeal(late -> limiter(late, TWO_SLICES, SLICE_0));

        assertThat(decision.outcome()).as("slice 1 has 4 - 2 - 2").isEqualTo(Outcome.REFUSED);
    }

    @Test
    void aBindOfASliceAnotherProcessAlreadySealedLeavesTheSealWhateverTheClocksSay() {
        // Its clock stays half a second into slice 0: the slice it binds has not ended for it.
        RateDecision decision =
                decidedByABindOvertakenByASeal(late -> limiter(late, TWO_SLICES, SLICE_0.plusMillis(500), () -> 0L));

        assertThat(decision.outcome()).as("slice 0 is sealed at 2").isEqualTo(Outcome.REFUSED);
    }

    @Test
    void twoProcessesThatComputedASliceDifferentlyLeaveItAsTheFirstBoundIt() {
        WindowLimiter other = limiter(fixture.store(), TWO_SLICES, SLICE_0);
        assertThat(other.tryAcquire("k", 3).allowed()).isTrue(); // slice 0
        CounterName slice0 = RateWindows.name(limiter, "k", SLICE_0);
        CounterName slice1 = RateWindows.name(limiter, "k", SLICE_0.plusSeconds(1));
        CounterStore late = beforeItsFirstBind(fixture.anotherStore(), () -> {
            // This process computed slice 1's max from slice 0's 3: 1. Before its bind, a permit of slice 0 that
            // committed late is given back, and the other process binds slice 1 from the 2 left: 2.
            assertThat(other.strategy().tryIncrement(slice0, -1, null, false).applied())
                    .isTrue();
            assertThat(other.tryAcquire("k", 2).allowed()).isTrue();
        });

        WindowLimiter lateLimiter = limiter(late, TWO_SLICES, SLICE_0);
        advance(Duration.ofSeconds(1));

        RateDecision decision = lateLimiter.tryAcquire("k", 1);

        assertThat(decision.outcome()).as("slice 1 has 4 - 2 - 2").isEqualTo(Outcome.REFUSED);
        assertThat(escrow(fixture.store()).state(slice1, Instant.now()).orElseThrow())
                .as("bound as the first bind left it, its value within")
                .extracting(EscrowState::bounds, EscrowState::value)
                .containsExactly(new Bounds(0L, 2L), 2L);
        BoundedStrategyContract.checkInvariant(escrow(fixture.store()), slice1);
    }

    /** {@code store}, whose first bind of a slice (a sliding window binds once) runs {@code overtake} first. */
    private static CounterStore beforeItsFirstBind(CounterStore store, Runnable overtake) {
        AtomicBoolean first = new AtomicBoolean(true);
        return new ForwardingCounterStore(store) {
            @Override
            public Optional<Escrow.EscrowCell> bindIfAbsent(
                    CounterName counter, Bounds bounds, long initial, String nodeCell, Instant now) {
                if (first.getAndSet(false)) {
                    overtake.run();
                }
                return super.bindIfAbsent(counter, bounds, initial, nodeCell, now);
            }
        };
    }

    /** 4 permits in any 2 seconds, in slices of a second. */
    private static final RateLimit TWO_SLICES = RateLimit.of(4, Duration.ofSeconds(2))
            .withAlgorithm(RateLimit.Algorithm.SLIDING_WINDOW)
            .withSubWindows(2);

    private static final Instant SLICE_0 = Instant.parse("2026-05-01T10:00:00Z");

    /**
     * The decision for 2 permits of a limiter that {@code overtaken} makes on a store whose first bind is overtaken:
     * between its read (slice 0 absent) and its bind, another process admits 2 in slice 0 and, a second later, 2 in
     * slice 1, which seals slice 0 at 2. Whatever it decided, slice 0 stays sealed as it was, and slices 0 and 1 hold
     * the 4 permits, no more.
     */
    private RateDecision decidedByABindOvertakenByASeal(Function<CounterStore, WindowLimiter> overtaken) {
        WindowLimiter other = limiter(fixture.store(), TWO_SLICES, SLICE_0);
        CounterStore late = beforeItsFirstBind(fixture.anotherStore(), () -> {
            assertThat(other.tryAcquire("k", 2).allowed()).isTrue();
            advance(Duration.ofSeconds(1));
            assertThat(other.tryAcquire("k", 2).allowed()).isTrue();
        });

        RateDecision decision = overtaken.apply(late).tryAcquire("k", 2);

        RateWindows slices = new RateWindows(TWO_SLICES);
        assertThat(value(SLICE_0, "k", TWO_SLICES) + value(slices.end(SLICE_0), "k", TWO_SLICES))
                .as("never more than the permits in two consecutive slices")
                .isEqualTo(4);
        assertThat(escrow(fixture.store())
                        .state(RateWindows.name(limiter, "k", SLICE_0), Instant.now())
                        .orElseThrow()
                        .bounds())
                .as("sealed as it was")
                .isEqualTo(new Bounds(0L, 2L));
        return decision;
    }

    @Test
    void aSealedSliceRefusesEveryRiseAndKeepsTheInvariant() {
        Escrow escrow = escrow(fixture.store());
        CounterName slice = CounterName.of(limiter + ":k:r:20260501T100000.000000000Z");
        escrow.bind(slice, new Bounds(0L, 100L), 0, Escrow.POOL, Instant.now());
        assertThat(escrow.transfer(slice, Escrow.NODE_PREFIX + "n1", 0, 30)).isPresent();
        assertThat(escrow.change(slice, Escrow.NODE_PREFIX + "n1", 10, 10, -10)).isTrue();
        assertThat(escrow.change(slice, Escrow.POOL, 5, 5, -5)).isTrue();

        EscrowState sealed = escrow.seal(slice, Instant.now()).orElseThrow();
        assertThat(sealed.value()).isEqualTo(15);
        assertThat(sealed.bounds()).isEqualTo(new Bounds(0L, 15L));
        assertThat(sealed.roomUp()).isZero();
        BoundedStrategyContract.checkInvariant(escrow, slice);
        assertThat(escrow.change(slice, Escrow.NODE_PREFIX + "n1", 1, 1, -1)).isFalse();
        assertThat(escrow.change(slice, Escrow.POOL, 1, 1, -1)).isFalse();
        assertThat(escrow.seal(slice, Instant.now()).orElseThrow().bounds()).isEqualTo(new Bounds(0L, 15L));
        assertThat(escrow.seal(CounterName.of(limiter + ":none"), Instant.now()))
                .isEmpty();
    }

    // ---- purge, names ----

    @Test
    void thePurgeDeletesEndedWindowsOnly() {
        RateLimit limit = RateLimit.of(5, Duration.ofMinutes(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);
        Instant start = Instant.parse("2026-05-01T10:00:00Z");
        WindowLimiter windows = limiter(fixture.store(), limit, start);
        windows.tryAcquire("a", 1);
        windows.tryAcquire("b", 1);
        advance(Duration.ofMinutes(1));
        windows.tryAcquire("a", 1);
        advance(Duration.ofMinutes(1));
        windows.tryAcquire("a", 1);
        Instant now = start.plus(Duration.ofMinutes(2));

        // The first window ended 1 minute ago: within the grace.
        assertThat(WindowLimiter.purge(windows, now, 100)).isZero();
        assertThat(WindowLimiter.purge(windows, now.plusSeconds(1), 100)).isEqualTo(2);
        assertThat(fixture.store().counterNames(limiter + ":", null, 100))
                .extracting(CounterName::value)
                .containsExactly(
                        limiter + ":a:r:20260501T100100.000000000Z", limiter + ":a:r:20260501T100200.000000000Z");
        assertThat(WindowLimiter.purge(windows, now.plusSeconds(61), 1)).isEqualTo(1);
        assertThat(windows.tryAcquire("a", 4).outcome()).isEqualTo(Outcome.ALLOWED); // the current one is intact
        assertThat(windows.tryAcquire("a", 1).outcome()).isEqualTo(Outcome.REFUSED);
    }

    @Test
    void theWindowMarkIsReservedInCounterNames() {
        RateLimit limit = RateLimit.of(5, Duration.ofMinutes(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);
        limiter(fixture.store(), limit, Instant.parse("2026-05-01T10:00:00Z")).tryAcquire("u1", 1);
        try (CounterService counters = CounterService.builder(fixture.store()).build()) {
            counters.increment(limiter + ".app", 1);
            assertThatThrownBy(() -> counters.get(limiter + ":u1:r:x"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("':r:'");
            assertThat(counters.counterNames(limiter + ".app", 1)) // the application's counters only: windows left out
                    .allMatch(name -> !name.contains(RateWindows.MARK));
            assertThat(counters.counterNames(null, 100_000))
                    .contains(limiter + ".app")
                    .noneMatch(name -> name.startsWith(limiter + ":"));
        }
        assertThatThrownBy(() ->
                        CounterService.builder(fixture.store()).strategy("quota:r:*", BoundedSettings.of(0L, 10L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("':r:'");
    }
}
