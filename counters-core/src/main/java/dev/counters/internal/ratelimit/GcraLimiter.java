package dev.counters.internal.ratelimit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.CountersException;
import dev.counters.RateDecision;
import dev.counters.RateDecision.Outcome;
import dev.counters.RateLimit;
import dev.counters.StoreUnavailableException;
import dev.counters.internal.Retries;
import dev.counters.internal.Time;
import dev.counters.internal.strategy.Combiner;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.spi.RateLimits;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * GCRA on the store's {@link RateLimits}: each key's theoretical arrival time ({@code tat}), one guarded write per
 * decision, on steady time (the database's clock). Permits cost {@code T = ceil(period / permits)} nanoseconds each
 * (rounding up only lowers the rate), and a key's time may run {@code burst * T} ahead of now.
 *
 * <p>Two things make a hot key cheap and keep every answer exact:
 *
 * <ul>
 *   <li>the concurrent acquires of one key in this JVM share one write ({@link Combiner}), their costs summed; a
 *       refused batch is split, each caller then written alone, so each caller gets the answer it would have had
 *       alone;
 *   <li>what a write returns is a lower bound of the key's {@code tat}, which only grows (a delete forgets a key only
 *       when that decides the same, or on {@link #reset}). So a request that bound already refuses ({@code bound +
 *       cost > now + burst}) is refused here without a statement: the store would refuse it too.
 * </ul>
 *
 * <p>Store calls are retried only when they surely wrote nothing ({@code counters-ratelimit[<rule>]}), behind a circuit
 * breaker of the same name, so that a dead database is answered at once.
 */
final class GcraLimiter implements KeyLimiter {

    /** Keys whose last known {@code tat} is kept for local refusals: dropping one only costs a statement. */
    private static final int KNOWN_KEYS = 10_000;

    private final RateLimits store;
    private final String limiter;
    private final RateLimit limit;
    private final Time time;
    private final long interval;
    private final long burst;
    private final Retry retry;
    private final CircuitBreaker breaker;
    // Weak values: a key nobody is acquiring needs no combiner, and one in use is held by its callers.
    private final Cache<String, Key> keys = Caffeine.newBuilder().weakValues().build();
    private final Cache<String, Long> known =
            Caffeine.newBuilder().maximumSize(KNOWN_KEYS).build();

    GcraLimiter(StrategyContext context, String limiter, RateLimit limit) {
        this.store = context.require(RateLimits.class);
        this.limiter = limiter;
        this.limit = limit;
        this.time = context.time();
        this.interval = emissionInterval(limit);
        this.burst = limit.burst() * interval;
        this.retry = context.retry(StrategyContext.transientFailures());
        this.breaker = context.circuitBreaker(
                "",
                StrategyContext.breakerForOutages(5)
                        .recordExceptions(CountersException.class)
                        .build());
    }

    /** {@code T}, in nanoseconds: rounded up, so that the rate is never above the limit's. */
    static long emissionInterval(RateLimit limit) {
        long period = limit.period().toNanos();
        return period / limit.permits() + (period % limit.permits() == 0 ? 0 : 1);
    }

    @Override
    public RateDecision tryAcquire(String key, long permits) {
        long cost = permits * interval;
        long now = nanos(time.steady());
        Long bound = known.getIfPresent(key);
        if (bound != null && bound + cost > now + burst) {
            return refused(bound, cost, now);
        }
        Key state = keys.get(key, Key::new);
        try {
            long tat = state.combiner.submit(cost, true);
            Seen seen = state.seen; // this write's or a later one's: never more remaining than the key truly has
            return decision(Outcome.ALLOWED, Math.max(tat, seen.tat), seen.now, Duration.ZERO);
        } catch (Refused refusal) {
            return refused(refusal.tat, cost, refusal.now);
        }
    }

    @Override
    public RateDecision peek(String key) {
        long now = nanos(time.steady());
        OptionalLong tat = guarded(() -> store.tat(limiter, key));
        long start = Math.max(tat.orElse(now), now);
        return start + interval <= now + burst
                ? decision(Outcome.ALLOWED, start, now, Duration.ZERO)
                : refused(start, interval, now);
    }

    @Override
    public void reset(String key) {
        known.invalidate(key);
        guarded(() -> store.delete(limiter, key));
        known.invalidate(key); // a refusal cached meanwhile may predate the delete
    }

    private RateDecision refused(long tat, long cost, long now) {
        long start = Math.max(tat, now);
        return decision(Outcome.REFUSED, start, now, Duration.ofNanos(start + cost - burst - now));
    }

    /** A decision from the key's {@code tat} (after an admission, or as found) at {@code now}. */
    private RateDecision decision(Outcome outcome, long tat, long now, Duration retryAfter) {
        long ahead = Math.max(tat - now, 0);
        long remaining = Math.max(0, Math.min(limit.burst(), (burst - ahead) / interval));
        return new RateDecision(outcome, remaining, retryAfter, Duration.ofNanos(ahead), limit);
    }

    /** A store call through the retry and the breaker: an open breaker fails at once, having written nothing. */
    private <T> T guarded(Supplier<T> call) {
        try {
            return breaker.executeSupplier(() -> Retries.write(retry, call));
        } catch (CallNotPermittedException e) {
            throw new StoreUnavailableException(
                    "The store failed repeatedly: rate limiter '" + limiter + "' does not call it for a while"
                            + " (circuit breaker '" + breaker.getName() + "' is open); nothing was written",
                    e);
        }
    }

    static long nanos(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    }

    /** The latest write of a key seen here: steady time and the key's {@code tat} then. */
    private record Seen(long now, long tat) {}

    /** One key's combined writes. The combiner writes one batch at a time, so {@link #apply} may keep state. */
    private final class Key implements Combiner.Write {

        private final String key;
        private final Combiner combiner;
        private volatile Seen seen = new Seen(Long.MIN_VALUE, Long.MIN_VALUE);

        Key(String key) {
            this.key = key;
            this.combiner = new Combiner(this);
        }

        /** Writes a batch's summed cost: the key's {@code tat} after it, or {@link Refused} for a batch of one. */
        @Override
        public long apply(Combiner.Batch batch) {
            return guarded(() -> {
                long cost = batch.takeQueued(); // again on each attempt: it takes the callers queued meanwhile
                long now = nanos(time.steady());
                Long bound = known.getIfPresent(key);
                if (bound != null && bound + cost > now + burst) {
                    throw refusal(batch, bound, now);
                }
                if (cost > burst) {
                    throw refusal(batch, now, now); // callers who together ask for more than a full bucket
                }
                RateLimits.Gcra written = store.acquire(limiter, key, cost, burst, now);
                seen = new Seen(now, written.tatNanos());
                if (written.admitted()) {
                    known.asMap().computeIfPresent(key, (k, was) -> Math.max(was, written.tatNanos()));
                    return written.tatNanos();
                }
                known.asMap().merge(key, written.tatNanos(), Math::max);
                throw refusal(batch, written.tatNanos(), now);
            });
        }

        private Combiner.SplitBatch refusal(Combiner.Batch batch, long tat, long now) {
            return batch.size() == 1 ? new Refused(tat, now) : new Refused(Long.MIN_VALUE, now);
        }
    }

    /**
     * A refusal: of a caller's own request (its {@code tat} as found), or of a batch, which the combiner then splits
     * into its callers' own requests.
     */
    private static final class Refused extends Combiner.SplitBatch {

        private static final long serialVersionUID = 1L;

        final long tat;
        final long now;

        Refused(long tat, long now) {
            super("refused by the key's time");
            this.tat = tat;
            this.now = now;
        }
    }
}
