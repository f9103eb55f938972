package dev.counters.internal.strategy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.CacheUnavailableException;
import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.StrategyStatistics;
import dev.counters.TransientStoreException;
import dev.counters.internal.Retries;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Maxima;
import dev.counters.spi.MonotonicCache;
import dev.counters.strategy.MonotonicSettings;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * A cached monotonic counter ("Efficient Global Counters, revisited"): the current value lives in a cache with atomic
 * increment; the durable copy is the maximum over N shard rows, each increment raising a random shard to its value with
 * probability {@code chance-to-write} (at 1.0, concurrent callers of a counter share one write of the largest of their
 * values: {@link MaxRaiser}); a cold start loads the maximum and seeds the cache with add-if-absent, so
 * concurrent loaders agree. It never goes down, only up.
 *
 * <p>What it promises depends on the chance: at 1.0 every value is durable before it is returned, so after a restart
 * the counter continues above every value it handed out (an id generator, on one node). Below 1.0, a restart
 * resumes from the largest value written, and values handed out after it are handed out again. With several nodes
 * and the default in-JVM cache, each node counts on its own from the shared maximum: values repeat across nodes
 * unless the cache is shared ({@code counters-redis}). At 1.0 a shared cache may also be lost while running: a value
 * is returned only if its cached copy outlived the value's write, so a cold loader cannot have read a maximum below
 * it.
 */
public final class MonotonicStrategy implements CounterStrategy {

    private final CounterStore store;
    private final Maxima maxima;
    private final Retry retry;
    private final MonotonicSettings settings;
    private final RandomGenerator random;
    private final MonotonicCache cache;
    private final CacheGuard guard;
    /** Per counter, the writes of its maximum shared by concurrent callers (at chance-to-write 1.0). */
    private final Cache<CounterName, MaxRaiser> raisers =
            Caffeine.newBuilder().maximumSize(100_000).build();
    /** Values dropped because the cache lost their copy during their write; increments refused after too many. */
    private final LongAdder droppedValues = new LongAdder();

    private final LongAdder refusedIncrements = new LongAdder();

    public MonotonicStrategy(StrategyContext context, MonotonicSettings settings, MonotonicCache cache) {
        this.store = context.store();
        this.maxima = context.require(Maxima.class);
        this.retry = context.retry(retryDefaults(cache.loadTimeout()));
        this.settings = settings;
        this.random = context.random();
        this.cache = cache;
        this.guard = cache instanceof LocalMonotonicCache ? CacheGuard.none() : CacheGuard.of(context);
    }

    /**
     * The attempts of an increment, and of a read that loads: {@link StrategyContext#transientFailures()} (10 attempts,
     * 5–500 ms), except that after a cold load found another loader at work ({@link CacheBusy}) the wait is
     * {@code loadTimeout / 511} (rounded up), doubling: the nine waits add up to at least the cache's load timeout,
     * so the last attempt comes after the claim of a loader that died has expired (20 ms doubling to 5.1 s for the
     * default 10 s on Redis). An application that registers its own {@code counters-monotonic} retry sets its waits.
     */
    static RetryConfig retryDefaults(Duration loadTimeout) {
        RetryConfig transientFailures = StrategyContext.transientFailures();
        IntervalBiFunction<Object> transientWaits = transientFailures.getIntervalBiFunction();
        int attempts = transientFailures.getMaxAttempts();
        long doublings = (1L << (attempts - 1)) - 1; // the sum of the waits, in first waits
        long firstBusyWait = Math.max(1, (loadTimeout.toMillis() + doublings - 1) / doublings); // rounded up
        return StrategyContext.transientFailures(attempts)
                .intervalBiFunction((attempt, outcome) -> outcome.isLeft() && outcome.getLeft() instanceof CacheBusy
                        ? firstBusyWait << (attempt - 1)
                        : transientWaits.apply(attempt, outcome))
                .build();
    }

    /** Conflicts: values dropped because the shared cache lost their copy while they were written. */
    @Override
    public StrategyStatistics.Activity activity() {
        return new StrategyStatistics.Activity(droppedValues.sum(), 0, refusedIncrements.sum(), null);
    }

    @Override
    public void increment(CounterName name, long delta) {
        incrementAndGet(name, delta);
    }

    /**
     * Takes a value and, when it is to be written, makes it durable. One budget bounds the call: the strategy's retry
     * ({@code counters-monotonic}, 10 attempts by default), each attempt sending at most one read of the stored
     * maximum (a cold cache) and one write of it. A failed write is repeated with the same value; a value whose
     * cached copy was lost during its write is dropped, and the next attempt takes another; a cold load that found
     * another loader at work is tried again by the next attempt.
     */
    @Override
    public long incrementAndGet(CounterName name, long delta) {
        if (delta <= 0) {
            throw new IllegalArgumentException("Counter '" + name + "' is monotonic: delta must be > 0, was " + delta);
        }
        Take take = new Take(name, delta);
        try {
            return Retries.write(retry, take::attempt);
        } catch (Dropped e) {
            refusedIncrements.increment();
            throw new CounterContentionException(name, retry.getRetryConfig().getMaxAttempts());
        } catch (CacheBusy e) {
            throw gaveUp(e);
        }
    }

    /** One increment's attempts: the value taken and not yet handed out, kept while its write is repeated. */
    private final class Take {

        private final CounterName name;
        private final long delta;
        private MonotonicCache.@Nullable Added added;
        private boolean writes;

        Take(CounterName name, long delta) {
            this.name = name;
            this.delta = delta;
        }

        long attempt() {
            boolean everyValueDurable = settings.chanceToWrite() >= 1.0;
            MonotonicCache.Added value = added;
            if (value == null) {
                value = add(name, delta);
                if (value == null) { // lost again right after loading
                    throw new Dropped(name);
                }
                added = value;
                writes = everyValueDurable || random.nextDouble() < settings.chanceToWrite();
            }
            if (everyValueDurable) {
                raisers.get(name, key -> new MaxRaiser()).raise(value.value(), writer(name));
            } else if (writes) {
                writer(name).accept(value.value());
            }
            // The copy lost while the value was being written (a flushed or restarted shared cache): a cold loader
            // may have read the maximum before the write and handed the value out again. Drop it, take another.
            MonotonicCache.Added written = value;
            if (!everyValueDurable || guard.call(() -> cache.holds(name, written.copy()))) {
                return value.value();
            }
            droppedValues.increment();
            added = null;
            throw new Dropped(name);
        }
    }

    /** A value dropped (a gap) or not taken: nothing was handed out, and the next attempt takes another. */
    private static final class Dropped extends TransientStoreException {

        private static final long serialVersionUID = 1L;

        Dropped(CounterName name) {
            super(
                    "Counter '" + name + "': the cached copy was lost while its value was written; no value was handed"
                            + " out",
                    null);
        }
    }

    /** A cold load found another loader at work, or lost its claim to a loss: nothing was taken, try again. */
    static final class CacheBusy extends TransientStoreException {

        private static final long serialVersionUID = 1L;

        CacheBusy(CounterName name) {
            super("Counter '" + name + "': another loader is loading its cached value; nothing was handed out", null);
        }
    }

    /** What the caller gets once the attempts ran out on a busy load: the cache did not answer with a value in time. */
    private CacheUnavailableException gaveUp(CacheBusy busy) {
        return new CacheUnavailableException(
                "Gave up waiting for the cached value of a monotonic counter after "
                        + retry.getRetryConfig().getMaxAttempts() + " attempts (the cache's load timeout is "
                        + cache.loadTimeout() + "): " + busy.getMessage(),
                busy);
    }

    /** Raises a random shard of the counter's maximum to a value: one statement, repeated by the caller's attempts. */
    private LongConsumer writer(CounterName name) {
        return value -> maxima.raiseShard(name, random.nextInt(settings.shards()), value);
    }

    /**
     * Adds to the cached value, loading the stored maximum into the cache first if none is cached: inside an
     * increment's attempt, so the load is one read, not retried on its own.
     */
    private MonotonicCache.@Nullable Added add(CounterName name, long delta) {
        try {
            Optional<MonotonicCache.Added> added = guard.call(() -> cache.addAndGet(name, delta));
            if (added.isEmpty()) {
                load(name);
                added = guard.call(() -> cache.addAndGet(name, delta));
            }
            return added.orElse(null);
        } catch (ArithmeticException e) {
            throw new CounterOverflowException(name, delta);
        }
    }

    /**
     * One try at loading the stored maximum into the cache (one read), within an attempt of the caller's retry.
     *
     * @throws CacheBusy when another loader is at work: the next attempt tries again
     */
    private long load(CounterName name) {
        OptionalLong loaded = guard.call(
                () -> cache.tryLoad(name, () -> maxima.maxOfShards(name).orElse(0)));
        if (loaded.isEmpty()) {
            throw new CacheBusy(name);
        }
        return loaded.getAsLong();
    }

    /** The cached value, loaded if absent: the strategy's retry is the only loop, of one read per attempt. */
    @Override
    public long get(CounterName name) {
        try {
            return retry.executeSupplier(() -> {
                OptionalLong cached = guard.call(() -> cache.get(name));
                return cached.isPresent() ? cached.getAsLong() : load(name);
            });
        } catch (CacheBusy e) {
            throw gaveUp(e);
        }
    }

    private long storedMax(CounterName name) {
        return retry.executeSupplier(() -> maxima.maxOfShards(name)).orElse(0);
    }

    @Override
    public Map<String, Long> cells(CounterName name) {
        return Map.of("max", storedMax(name));
    }

    @Override
    public void delete(CounterName name) {
        guard.run(() -> cache.remove(name));
        raisers.invalidate(name);
        retry.executeRunnable(() -> store.delete(name));
    }
}
