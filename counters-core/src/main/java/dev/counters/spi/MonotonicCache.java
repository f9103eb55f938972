package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Where monotonic counters keep their current value (the shared memcache of "Efficient Global Counters, revisited"): an
 * atomic add on a present value, and add-if-absent, so that concurrent cold loaders agree. The default lives in this
 * JVM; a cache shared by several nodes ({@code counters-redis}) makes one monotonic sequence across them.
 *
 * <p>A cached value may vanish at any time (evicted, flushed, the cache restarted): the next increment loads the
 * stored maximum again. It must never come back lower than it was (restored from an old snapshot, promoted from a
 * lagging replica): values would be handed out twice. Each cached copy has an id, new whenever a value is loaded
 * after none was present, so that a caller can tell that the copy it took a value from is still the one cached.
 *
 * <p>Implementations throw {@link dev.counters.CacheUnavailableException} when the cache cannot be reached or does
 * not answer in time.
 */
public interface MonotonicCache {

    /** The cached value, if present. */
    OptionalLong get(CounterName name);

    /**
     * Unless a value is present, stores the one {@code stored} returns (the stored maximum), and returns the value
     * present afterwards; concurrent loaders agree on one. {@code stored} is called after the absence was seen, and
     * its result is kept only if the cache lost nothing of this counter in between: a loaded value is never read
     * before a loss that it replaces. Tried once, it never waits: empty when another loader is loading the value, or
     * when this load lost out to a loss meanwhile; the caller tries again later ({@link #loadTimeout()}). An exception
     * from {@code stored} passes through unchanged.
     */
    OptionalLong tryLoad(CounterName name, LongSupplier stored);

    /**
     * How long a load claimed by another loader may hold others up (a loader that died leaves its claim this long):
     * a caller that {@link #tryLoad} answered empty keeps trying at least this long. Zero for a cache whose
     * {@code tryLoad} is never empty.
     */
    default Duration loadTimeout() {
        return Duration.ZERO;
    }

    /**
     * Adds {@code delta} to a present value and returns the sum, with the id of the copy it was added to; empty if no
     * value is present.
     *
     * @throws ArithmeticException if the sum leaves the 64-bit range (nothing changes)
     */
    Optional<Added> addAndGet(CounterName name, long delta);

    /** Whether the copy {@code copy} is still the one cached: not removed, evicted, flushed or lost since. */
    boolean holds(CounterName name, long copy);

    void remove(CounterName name);

    /**
     * The result of {@link #addAndGet}.
     *
     * @param value the sum
     * @param copy the id of the cached copy the delta was added to
     */
    record Added(long value, long copy) {}
}
