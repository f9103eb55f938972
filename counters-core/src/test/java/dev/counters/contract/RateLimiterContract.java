package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.RateDecision;
import dev.counters.RateDecision.Outcome;
import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import dev.counters.RateLimiter;
import dev.counters.internal.Observations;
import dev.counters.internal.Threads;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.internal.ratelimit.RateLimiters;
import dev.counters.internal.service.RateLimitExpiry;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.spi.CounterStore;
import dev.counters.spi.RateLimits;
import dev.counters.testing.TestThreads;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * What every store's rate limiters must do, run through a subclass of a few lines per store. Limiters are made on the
 * store under test with steady time that the test moves by hand ({@link #advance}): decisions are on steady time, so
 * a test never waits for one. Each algorithm has its section ({@link Gcra}); the store-failure and input cases hold
 * for every algorithm, through {@link #limit()}, the limit the top-level cases use.
 */
public abstract class RateLimiterContract extends ContractSupport {

    protected RateLimiterContract(StoreFixture fixture) {
        super(fixture);
    }

    /** Steady time of this test: the wall clock when it started, moved only by {@link #advance}. */
    private final AtomicLong ticker = new AtomicLong();

    /** Half a second into the wall clock's second: away from the edges of its windows. */
    private final Instant start = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusMillis(500);

    /** Moves this test's steady time on. */
    protected void advance(Duration duration) {
        ticker.addAndGet(duration.toNanos());
    }

    protected void advanceNanos(long nanos) {
        ticker.addAndGet(nanos);
    }

    /** Steady time now, in nanoseconds since the epoch: what decisions are made at. */
    protected long now() {
        return (start.getEpochSecond() * 1_000_000_000L + start.getNano()) + ticker.get();
    }

    /** The limit of the cases that hold for every algorithm; GCRA here, a window in a subclass's own section. */
    protected RateLimit limit() {
        return RateLimit.parse("10/1s");
    }

    /** A limiter name unique to this test. */
    protected String limiterName(String local) {
        return prefix() + local;
    }

    /** Limiters on {@code store} with these rules, on this test's steady time, its own Resilience4j registries. */
    protected RateLimiters limiters(CounterStore store, Map<String, RateLimitRule> rules) {
        return limiters(store, rules, Duration.ZERO);
    }

    /** {@link #limiters(CounterStore, Map)} of a node whose steady time is {@code shift} ahead of this test's. */
    protected RateLimiters limiters(CounterStore store, Map<String, RateLimitRule> rules, Duration shift) {
        Time time = new Time(Clock.fixed(start.plus(shift), ZoneOffset.UTC), ticker::get);
        UniqueIds ids = UniqueIds.create();
        RetryRegistry retries = RetryRegistry.ofDefaults();
        CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
        return new RateLimiters(
                rules,
                rule -> new StrategyContext(
                        store,
                        time,
                        new SplittableRandom(1),
                        ids,
                        Threads.daemon("test-"),
                        retries,
                        breakers,
                        Observations.NONE,
                        rule,
                        "ratelimit"),
                () -> {});
    }

    /** A limiter of {@code limit} on {@code store}, failing as {@code rule} says. */
    protected RateLimiter limiter(CounterStore store, RateLimitRule rule) {
        String name = limiterName("limited");
        return limiters(store, Map.of(name, rule)).get(name);
    }

    protected RateLimiter limiter(RateLimit limit) {
        return limiter(store(), RateLimitRule.of(limit));
    }

    // ---- input ----

    @Test
    void badInputIsRefusedWithItsReasonAndTakesNothing() {
        RateLimit limit = limit();
        RateLimiter limiter = limiter(limit);
        long most = limit.algorithm() == RateLimit.Algorithm.GCRA ? limit.burst() : limit.permits();
        assertThatThrownBy(() -> limiter.tryAcquire("k", 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("takes 1 to " + most + " permits at once")
                .hasMessageContaining("not 0");
        assertThatThrownBy(() -> limiter.tryAcquire("k", most + 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not " + (most + 1));
        assertThatThrownBy(() -> limiter.tryAcquire("", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must not be empty");
        assertThatThrownBy(() -> limiter.tryAcquire(null, 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must not be null");
        assertThat(limiter.tryAcquire("k", most).outcome()).isEqualTo(Outcome.ALLOWED); // nothing was taken before
        for (Outcome outcome : Outcome.values()) {
            assertThat(limiter.decisions(outcome)).isEqualTo(outcome == Outcome.ALLOWED ? 1 : 0);
        }
    }

    @Test
    void keysOfAnyShapeAreTheirOwnAndNeverReachTheStoreAsTheyAre() throws Exception {
        RateLimiter limiter = limiter(limit());
        long most = limit().algorithm() == RateLimit.Algorithm.GCRA ? limit().burst() : limit().permits();
        List<String> keys = List.of(
                "user-1",
                "user-1 ",
                "a:b",
                "'; DELETE FROM counter_rate_tat; --",
                "x".repeat(40),
                "x".repeat(41),
                "ключ",
                "h" + "A".repeat(43));
        for (String key : keys) {
            assertThat(limiter.tryAcquire(key, most).outcome()).as(key).isEqualTo(Outcome.ALLOWED);
        }
        for (String key : keys) {
            assertThat(limiter.tryAcquire(key).outcome()).as(key).isEqualTo(Outcome.REFUSED);
        }
        if (limit().algorithm() == RateLimit.Algorithm.GCRA) {
            RateLimits rateLimits = capability(store(), RateLimits.class);
            assertThat(rateLimits.tat(limiter.name(), "user-1")).isPresent();
            assertThat(rateLimits.tat(limiter.name(), "x".repeat(40))).isPresent();
            for (String key : keys.subList(1, keys.size())) {
                if (!key.equals("x".repeat(40))) {
                    assertThat(rateLimits.tat(limiter.name(), key)).as(key).isEmpty();
                    assertThat(rateLimits.tat(limiter.name(), hashed(key)))
                            .as(key)
                            .isPresent();
                }
            }
        }
    }

    /** How a key that is not plain is stored: {@code h} and the URL-safe Base64 of its SHA-256, 44 characters. */
    protected static String hashed(String key) throws NoSuchAlgorithmException {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        return "h" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    }

    // ---- GCRA ----

    /**
     * GCRA's decisions: exactly what {@link ReferenceGcra} answers, under any concurrency; store failures answered by
     * the rule.
     */
    @Nested
    class Gcra {
        // ---- store failures ----

        @Test
        void aStoreThatFailsClosedRefusesAndNeverSaysRefusedOrAllowed() {
            FaultyRateLimits store = new FaultyRateLimits(store());
            RateLimiter limiter = limiter(store, RateLimitRule.of(limit()));
            store.fault = FaultyRateLimits.Fault.DOWN;
            for (int i = 0; i < 3; i++) {
                RateDecision decision = limiter.tryAcquire("k");
                assertThat(decision.outcome()).isEqualTo(Outcome.FAIL_CLOSED);
                assertThat(decision.allowed()).isFalse();
                assertThat(decision.remaining()).isZero();
                assertThat(decision.retryAfter()).isPositive();
            }
            assertThat(limiter.decisions(Outcome.FAIL_CLOSED)).isEqualTo(3);
            store.fault = FaultyRateLimits.Fault.NONE;
            assertThat(limiter.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED);
        }

        @Test
        void aStoreThatFailsOpenAdmitsItsBudgetPerPeriodThenRefuses() {
            FaultyRateLimits store = new FaultyRateLimits(store());
            RateLimitRule rule = RateLimitRule.of(limit()).failingOpen().withFailOpenPermits(3);
            RateLimiter limiter = limiter(store, rule);
            store.fault = FaultyRateLimits.Fault.DOWN;
            List<Outcome> outcomes = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                outcomes.add(limiter.tryAcquire("k" + i).outcome()); // the budget is the node's, whatever the key
            }
            assertThat(outcomes)
                    .containsExactly(
                            Outcome.FAIL_OPEN,
                            Outcome.FAIL_OPEN,
                            Outcome.FAIL_OPEN,
                            Outcome.FAIL_CLOSED,
                            Outcome.FAIL_CLOSED);
            assertThat(limiter.peek("k").outcome()).isEqualTo(Outcome.FAIL_CLOSED);
            advance(limit().period());
            assertThat(limiter.tryAcquire("k", 2).outcome()).isEqualTo(Outcome.FAIL_OPEN);
            assertThat(limiter.tryAcquire("k", 2).outcome()).isEqualTo(Outcome.FAIL_CLOSED); // 1 left, not 2
            assertThat(limiter.decisions(Outcome.FAIL_OPEN)).isEqualTo(4);
            assertThat(limiter.decisions(Outcome.FAIL_CLOSED)).isEqualTo(3);
        }

        @Test
        void aLostReplyIsNeverAllowedNorRefusedThoughItMayHaveTakenThePermits() {
            FaultyRateLimits store = new FaultyRateLimits(store());
            RateLimiter closed = limiter(store, RateLimitRule.of(limit()));
            store.fault = FaultyRateLimits.Fault.LOST_REPLY;
            long most = limit().algorithm() == RateLimit.Algorithm.GCRA ? limit().burst() : limit().permits();
            // Taken by the store, then the reply lost; then refused by the store, then the reply lost.
            assertThat(closed.tryAcquire("k", most).outcome()).isEqualTo(Outcome.FAIL_CLOSED);
            assertThat(closed.tryAcquire("k", most).outcome()).isEqualTo(Outcome.FAIL_CLOSED);
            store.fault = FaultyRateLimits.Fault.NONE;
            assertThat(closed.tryAcquire("k").outcome()).isEqualTo(Outcome.REFUSED); // the first did take them
            assertThat(closed.decisions(Outcome.ALLOWED)).isZero();
        }

        @Test
        void aDeadStoreIsAnsweredAtOnceByTheBreakerAndATransientFailureIsRetried() {
            FaultyRateLimits store = new FaultyRateLimits(store());
            RateLimiter limiter = limiter(store, RateLimitRule.of(limit()));
            store.fault = FaultyRateLimits.Fault.TRANSIENT_ONCE;
            assertThat(limiter.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED); // retried: nothing was written
            assertThat(store.acquires.get()).isEqualTo(2);
            store.fault = FaultyRateLimits.Fault.DOWN;
            for (int i = 0; i < 20; i++) {
                assertThat(limiter.tryAcquire("k" + i).outcome()).isEqualTo(Outcome.FAIL_CLOSED);
            }
            assertThat(store.acquires.get())
                    .as("calls after the breaker opened")
                    .isEqualTo(2 + 5);
        }

        @Test
        void eachDecisionIsTheReferenceModelsWithBurstPermitsAndAMovingClock() {
            RateLimit limit = RateLimit.parse("10/1s burst 4"); // T = 100 ms
            RateLimiter limiter = limiter(limit);
            ReferenceGcra reference = new ReferenceGcra(limit);
            SplittableRandom random = new SplittableRandom(7);
            for (int i = 0; i < 400; i++) {
                advanceNanos(random.nextLong(0, 150_000_000L));
                long permits = random.nextLong(1, 5);
                RateDecision expected = reference.acquire(now(), permits);
                assertThat(limiter.tryAcquire("k", permits)).as("request " + i).isEqualTo(expected);
                assertThat(limiter.peek("k")).as("peek " + i).isEqualTo(reference.peek(now()));
            }
            assertThat(limiter.decisions(Outcome.ALLOWED) + limiter.decisions(Outcome.REFUSED))
                    .isEqualTo(400);
            assertThat(limiter.decisions(Outcome.ALLOWED)).isPositive();
            assertThat(limiter.decisions(Outcome.REFUSED)).isPositive();
        }

        @Test
        void aRefusalsRetryAfterIsExact() {
            RateLimit limit = RateLimit.parse("3/1s"); // T = 333,333,334 ns: rounded up
            RateLimiter limiter = limiter(limit);
            for (int i = 0; i < 3; i++) {
                assertThat(limiter.tryAcquire("k").allowed()).isTrue();
            }
            RateDecision refused = limiter.tryAcquire("k", 2);
            assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
            assertThat(refused.retryAfter()).isEqualTo(Duration.ofNanos(2 * 333_333_334L));
            assertThat(refused.remaining()).isZero();
            assertThat(refused.resetAfter()).isEqualTo(Duration.ofNanos(3 * 333_333_334L));
            advanceNanos(refused.retryAfter().toNanos() - 1);
            assertThat(limiter.tryAcquire("k", 2).outcome()).isEqualTo(Outcome.REFUSED); // cached or not: exact
            advanceNanos(1);
            RateDecision allowed = limiter.tryAcquire("k", 2);
            assertThat(allowed.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(allowed.remaining()).isZero();
            assertThat(allowed.retryAfter()).isZero();
        }

        @Test
        void manyThreadsAtOneKeyAreAdmittedExactlyWhatGcraAllows() {
            RateLimit limit = RateLimit.parse("1000/1s burst 50"); // T = 1 ms
            FaultyRateLimits store = new FaultyRateLimits(store());
            RateLimiter limiter = limiter(store, RateLimitRule.of(limit));
            long[] advances = {0, 10_000_000L, 1, 999_999L, 30_000_000L, 200_000_000L};
            long expected = 0;
            ReferenceGcra reference = new ReferenceGcra(limit);
            for (long step : advances) {
                advanceNanos(step);
                while (reference.acquire(now(), 1).allowed()) {
                    expected++; // at one instant, unit requests are admitted alike in any order
                }
                Concurrently.run(16, thread -> {
                    for (int i = 0; i < 100; i++) {
                        limiter.tryAcquire("hot");
                    }
                });
                assertThat(limiter.decisions(Outcome.ALLOWED))
                        .as("after advancing " + step)
                        .isEqualTo(expected);
            }
            assertThat(limiter.decisions(Outcome.REFUSED)).isEqualTo(16L * 100 * advances.length - expected);
            // Refusals are mostly local, and admissions combined: far fewer statements than decisions.
            assertThat(store.acquires.get()).isLessThan(16 * 100 * advances.length / 4);
        }

        @Test
        void aRefusedBatchIsSplitSoThatEveryCallerGetsItsOwnAnswer() {
            RateLimit limit = RateLimit.parse("100/1s burst 25");
            RateLimiter limiter = limiter(limit);
            List<Long> refusedCosts = Collections.synchronizedList(new ArrayList<>());
            AtomicLong admittedPermits = new AtomicLong();
            Concurrently.run(12, thread -> {
                long cost = thread % 3 == 0 ? 7 : thread % 3 == 1 ? 2 : 1;
                for (int i = 0; i < 10; i++) {
                    RateDecision decision = limiter.tryAcquire("k", cost);
                    if (decision.allowed()) {
                        admittedPermits.addAndGet(cost);
                    } else {
                        assertThat(decision.outcome()).isEqualTo(Outcome.REFUSED);
                        refusedCosts.add(cost);
                    }
                }
            });
            long left = 25 - admittedPermits.get();
            assertThat(left).isGreaterThanOrEqualTo(0);
            // The clock stood still, so room only shrank: a caller refused had more than what is left even now.
            assertThat(refusedCosts).allSatisfy(cost -> assertThat(cost).isGreaterThan(left));
            assertThat(limiter.peek("k").remaining()).isEqualTo(left);
        }

        @Test
        void callersQueuedBehindAWriteShareOneAndTheirRefusedBatchIsSplit() throws Exception {
            RateLimit limit = RateLimit.parse("10/1s");
            FaultyRateLimits store = new FaultyRateLimits(store());
            RateLimiter limiter = limiter(store, RateLimitRule.of(limit));
            assertThat(limiter.tryAcquire("k", 6).allowed()).isTrue();
            store.hold = new CountDownLatch(1);
            List<Thread> callers = new ArrayList<>();
            Map<Long, Outcome> outcomes = new ConcurrentHashMap<>();
            callers.add(TestThreads.start(
                    () -> outcomes.put(1L, limiter.tryAcquire("k", 1).outcome())));
            for (int spin = 0; store.acquires.get() < 2 && spin < 1_000; spin++) {
                Thread.sleep(5); // until the first caller's write waits in the store
            }
            for (long cost : new long[] {3, 4, 2}) {
                callers.add(TestThreads.start(
                        () -> outcomes.put(cost, limiter.tryAcquire("k", cost).outcome())));
            }
            Thread.sleep(200); // they queue behind the held write
            store.hold.countDown();
            for (Thread caller : callers) {
                caller.join(10_000);
            }
            // 3 left after the first: 3 + 4 + 2 together do not fit, so the batch is split and each decided alone
            assertThat(outcomes).hasSize(4).containsEntry(1L, Outcome.ALLOWED);
            long admitted = outcomes.entrySet().stream()
                    .filter(e -> e.getValue() == Outcome.ALLOWED)
                    .mapToLong(Map.Entry::getKey)
                    .sum();
            long left = limiter.peek("k").remaining();
            assertThat(6 + admitted + left).isEqualTo(10);
            outcomes.forEach((cost, outcome) -> {
                if (outcome == Outcome.REFUSED) {
                    assertThat(cost).as("refused while it fitted").isGreaterThan(left);
                }
            });
            assertThat(admitted).isGreaterThan(1);
            // One write for the queued three; split, one for the first that fits, the others refused here: the
            // batch's refusal read the key's time.
            assertThat(store.acquires.get()).isEqualTo(4);
        }

        @Test
        void whileTheClockMovesUnderLoadNoSpanAdmitsMoreThanTheBound() {
            RateLimit limit = RateLimit.parse("1000/1s burst 20"); // T = 1 ms
            RateLimiter limiter = limiter(limit);
            long begin = now();
            AtomicInteger done = new AtomicInteger();
            Concurrently.run(9, thread -> {
                if (thread == 0) {
                    for (int i = 0; i < 300; i++) {
                        advanceNanos(137_000L);
                        long seen = decided(limiter);
                        long until = System.nanoTime() + 5_000_000L;
                        while (decided(limiter) < seen + 8 && System.nanoTime() < until) {
                            Thread.onSpinWait(); // let the others decide at this time first, 5 ms at most
                        }
                    }
                    done.set(1);
                    return;
                }
                while (done.get() == 0) {
                    limiter.tryAcquire("k");
                }
            });
            long elapsed = now() - begin;
            long bound = 20 + elapsed / 1_000_000L; // a full bucket, plus one permit per T that passed
            assertThat(limiter.decisions(Outcome.ALLOWED)).isLessThanOrEqualTo(bound);
            assertThat(limiter.peek("k").remaining())
                    .as("what is left adds up")
                    .isLessThanOrEqualTo(bound - limiter.decisions(Outcome.ALLOWED));
        }

        private long decided(RateLimiter limiter) {
            return limiter.decisions(Outcome.ALLOWED) + limiter.decisions(Outcome.REFUSED);
        }

        @Test
        void aNodeWhoseClockIsAheadGetsOnlyThePermitsOfItsLead() {
            RateLimit limit = RateLimit.parse("10/1s burst 10"); // T = 100 ms
            String name = limiterName("shared");
            RateLimiter one =
                    limiters(store(), Map.of(name, RateLimitRule.of(limit))).get(name);
            RateLimiter ahead = limiters(anotherStore(), Map.of(name, RateLimitRule.of(limit)), Duration.ofMillis(250))
                    .get(name);
            assertThat(one.tryAcquire("k", 10).allowed()).isTrue();
            assertThat(ahead.tryAcquire("k", 2).allowed()).isTrue(); // 250 ms on: two permits of 100 ms came back
            assertThat(ahead.tryAcquire("k").outcome()).isEqualTo(Outcome.REFUSED);
            assertThat(one.tryAcquire("k").outcome()).isEqualTo(Outcome.REFUSED);
            advance(Duration.ofMillis(150)); // the node behind is now where the other was: still nothing for it
            assertThat(one.tryAcquire("k").outcome()).isEqualTo(Outcome.REFUSED);
            advance(Duration.ofMillis(100)); // both move on: a permit for each node's now, one of them first
            assertThat(ahead.tryAcquire("k", 2).allowed()).isTrue();
            assertThat(one.tryAcquire("k").outcome()).isEqualTo(Outcome.REFUSED);
        }

        @Test
        void resetGivesTheWholeBurstBackAndKeysAreIndependent() {
            RateLimit limit = RateLimit.parse("5/1m");
            RateLimiter limiter = limiter(limit);
            assertThat(limiter.tryAcquire("a", 5).allowed()).isTrue();
            assertThat(limiter.tryAcquire("a").outcome()).isEqualTo(Outcome.REFUSED); // known here now
            assertThat(limiter.tryAcquire("b", 5).allowed()).isTrue();
            limiter.reset("a");
            assertThat(limiter.peek("a").remaining()).isEqualTo(5);
            assertThat(limiter.tryAcquire("a", 5).allowed()).isTrue();
            assertThat(limiter.tryAcquire("b").outcome()).isEqualTo(Outcome.REFUSED);
        }

        @Test
        void idleExpiryDeletesOnlyKeysWhoseTimeHasPassedByTheGrace() {
            RateLimit limit = RateLimit.parse("10/1s");
            RateLimits rateLimits = capability(store(), RateLimits.class);
            String name = limiterName("idle");
            RateLimiter limiter =
                    limiters(store(), Map.of(name, RateLimitRule.of(limit))).get(name);
            limiter.tryAcquire("idle");
            advance(RateLimitExpiry.GRACE.plusSeconds(2));
            limiter.tryAcquire("busy", 10); // its time runs a second ahead of now
            limiter.tryAcquire("recent"); // its time passed just now, within the grace
            advance(Duration.ofSeconds(1).minusMillis(1));
            new RateLimitExpiry(rateLimits).run(Instant.ofEpochSecond(0, now()));
            assertThat(rateLimits.tat(name, "idle")).isEmpty();
            assertThat(rateLimits.tat(name, "busy")).isPresent();
            assertThat(rateLimits.tat(name, "recent")).isPresent();
            assertThat(limiter.tryAcquire("busy").outcome()).isEqualTo(Outcome.ALLOWED); // a permit came back
        }
    }

    // ---- windows ----

    /**
     * Fixed windows, calendar quotas and sliding windows through the limiter (the windows' own contract is
     * {@code dev.counters.internal.ratelimit.WindowLimiterContract}): decisions, store failures answered by the rule
     * and never {@link Outcome#ALLOWED} nor {@link Outcome#REFUSED} for a write whose outcome is unknown, the purge of
     * ended windows.
     */
    @Nested
    class Windows {

        private final RateLimit fixed = RateLimit.parse("4/1m fixed-window");

        /** A store whose escrow writes of windows fail as {@link #fault} says. */
        final class FaultyWindows extends ForwardingCounterStore {

            volatile FaultyRateLimits.Fault fault = FaultyRateLimits.Fault.NONE;

            FaultyWindows(CounterStore delegate) {
                super(delegate);
            }

            @Override
            public java.util.Optional<dev.counters.spi.Escrow.EscrowState> changeAndGet(
                    dev.counters.CounterName counter,
                    String cell,
                    long valueDelta,
                    long roomDownDelta,
                    long roomUpDelta,
                    Instant now) {
                switch (fault) {
                    case DOWN:
                        throw new dev.counters.StoreUnavailableException("the store is down (test)", null);
                    case LOST_REPLY:
                        super.changeAndGet(counter, cell, valueDelta, roomDownDelta, roomUpDelta, now);
                        throw new dev.counters.CounterStoreException("the commit's reply was lost (test)", null);
                    default:
                        return super.changeAndGet(counter, cell, valueDelta, roomDownDelta, roomUpDelta, now);
                }
            }
        }

        @Test
        void aWindowAdmitsItsPermitsThenRefusesUntilItEnds() {
            RateLimiter limiter = limiter(fixed);
            RateDecision first = limiter.tryAcquire("k", 3);
            assertThat(first.outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(first.remaining()).isEqualTo(1);
            assertThat(limiter.tryAcquire("k", 2).outcome()).isEqualTo(Outcome.REFUSED);
            RateDecision last = limiter.tryAcquire("k");
            assertThat(last.remaining()).isZero();
            RateDecision refused = limiter.tryAcquire("k");
            assertThat(refused.outcome()).isEqualTo(Outcome.REFUSED);
            assertThat(refused.retryAfter()).isEqualTo(refused.resetAfter()).isPositive();
            advance(refused.retryAfter());
            assertThat(limiter.tryAcquire("k", 4).outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(limiter.decisions(Outcome.ALLOWED)).isEqualTo(3);
            assertThat(limiter.decisions(Outcome.REFUSED)).isEqualTo(2);
        }

        @Test
        void aSlidingWindowCountsThePermitsOfTheSlicesBefore() {
            RateLimiter limiter = limiter(RateLimit.parse("4/4s sliding-window 4"));
            assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
            advance(Duration.ofSeconds(1));
            assertThat(limiter.tryAcquire("k", 2).outcome()).isEqualTo(Outcome.REFUSED);
            assertThat(limiter.tryAcquire("k", 1).allowed()).isTrue();
            advance(Duration.ofSeconds(3)); // the first slice left the window
            assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
            assertThat(limiter.tryAcquire("k", 1).outcome()).isEqualTo(Outcome.REFUSED);
        }

        @Test
        void aStoreFailureIsAnsweredByTheRuleAndALostReplyIsNeverAllowedNorRefused() {
            FaultyWindows store = new FaultyWindows(store());
            RateLimiter closed = limiter(store, RateLimitRule.of(fixed));
            store.fault = FaultyRateLimits.Fault.DOWN;
            assertThat(closed.tryAcquire("k").outcome()).isEqualTo(Outcome.FAIL_CLOSED);
            store.fault = FaultyRateLimits.Fault.LOST_REPLY; // taken by the store, then the reply lost
            assertThat(closed.tryAcquire("k", 3).outcome()).isEqualTo(Outcome.FAIL_CLOSED);
            store.fault = FaultyRateLimits.Fault.NONE;
            assertThat(closed.tryAcquire("k", 2).outcome()).isEqualTo(Outcome.REFUSED); // the lost one did take 3
            assertThat(closed.tryAcquire("k", 1).outcome()).isEqualTo(Outcome.ALLOWED);
            assertThat(closed.decisions(Outcome.ALLOWED)).isOne();
        }

        @Test
        void thePurgeDeletesTheWindowsThatEndedByTheGrace() {
            String name = limiterName("purged");
            RateLimiters limiters = limiters(store(), Map.of(name, RateLimitRule.of(fixed)));
            RateLimiter limiter = limiters.get(name);
            limiter.tryAcquire("a");
            advance(Duration.ofMinutes(1));
            limiter.tryAcquire("a");
            assertThat(limiters.purgeWindows(Instant.ofEpochSecond(0, now()), 100))
                    .isZero();
            advance(Duration.ofMinutes(1));
            assertThat(limiters.purgeWindows(Instant.ofEpochSecond(0, now()), 100))
                    .isOne();
            assertThat(store().counterNames(name + ":", null, 10)).hasSize(1);
            assertThat(limiter.tryAcquire("a", 4).outcome()).isEqualTo(Outcome.ALLOWED); // the window of now
            assertThat(limiter.tryAcquire("a").outcome()).isEqualTo(Outcome.REFUSED);
        }
    }
}
