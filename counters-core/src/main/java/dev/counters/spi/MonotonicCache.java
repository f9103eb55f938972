package dev.counters.spi;

import dev.counters.CounterName;
import java.util.OptionalLong;

/**
 * Where monotonic counters keep their current value (the shared memcache of "Efficient Global Counters, revisited"): an
 * atomic add on a present value, and add-if-absent, so that concurrent cold loaders agree. The default lives in this
 * JVM; a cache shared by several nodes (Redis, Hazelcast) makes one monotonic sequence across them.
 */
public interface MonotonicCache {

    /** The cached value, if present. */
    OptionalLong get(CounterName name);

    /** Stores {@code value} unless a value is present; returns the value present afterwards. */
    long putIfAbsent(CounterName name, long value);

    /**
     * Adds {@code delta} to a present value and returns the sum; empty if no value is present.
     *
     * @throws ArithmeticException if the sum leaves the 64-bit range (nothing changes)
     */
    OptionalLong addAndGet(CounterName name, long delta);

    void remove(CounterName name);
}
