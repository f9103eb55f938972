package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.IdempotencyKey;
import dev.counters.StrategyStatistics;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * How a family of counters turns increments into storage writes and reads. One instance serves every counter
 * routed to it, from many threads. Names arrive validated and deltas non-zero; a strategy checks only what is
 * particular to it (for example, that a grow-only counter gets no negative delta).
 */
public interface CounterStrategy extends AutoCloseable {

    void increment(CounterName name, long delta);

    long incrementAndGet(CounterName name, long delta);

    /**
     * Adds {@code delta} at most once under {@code key}: a repeat of the key with the same counter and delta writes
     * nothing, one with another is an {@link dev.counters.IdempotencyKeyReusedException}.
     *
     * @return the counter's value right after the increment when {@code needsValue} (for a repeat, the value the
     *     first call returned, or the current value if the first call did not ask for one); otherwise 0
     * @throws UnsupportedOperationException for a strategy whose settings take no keys, which the service refuses
     *     before calling ({@link dev.counters.strategy.StrategySettings#takesIdempotencyKeys()})
     */
    default long increment(CounterName name, long delta, IdempotencyKey key, boolean needsValue) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no idempotency keys");
    }

    /**
     * {@link #increment} of one counter, for the handle a caller keeps ({@link dev.counters.Counter}): a strategy
     * that looks the counter up on each increment can look it up once here.
     */
    default LongConsumer incrementer(CounterName name) {
        return delta -> increment(name, delta);
    }

    /**
     * Adds {@code delta} and returns a future that completes once the increment is durable. Strategies that write
     * before {@link #increment} returns complete it at once; write-behind strategies when the flush carrying it
     * commits.
     */
    default CompletableFuture<Void> incrementDurably(CounterName name, long delta) {
        try {
            increment(name, delta);
            return CompletableFuture.completedFuture(null);
        } catch (IllegalArgumentException e) {
            throw e; // bad input is refused at once, as by every other method
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    long get(CounterName name);

    /** The values of several counters; every requested name is in the result. */
    default Map<CounterName, Long> getAll(Collection<CounterName> names) {
        Map<CounterName, Long> values = new LinkedHashMap<>();
        for (CounterName name : names) {
            values.put(name, get(name));
        }
        return values;
    }

    /**
     * The counter's value read from storage now, bypassing whatever staleness the strategy's configuration allows
     * for {@link #get} (a cached total, for example).
     */
    default long getExact(CounterName name) {
        return get(name);
    }

    /** The stored cells of the counter and their values: shards, nodes, or the one cell of an atomic counter. */
    Map<String, Long> cells(CounterName name);

    void delete(CounterName name);

    /**
     * Writes what the strategy holds in memory. The future completes once every increment made before the call is
     * durable, at once for strategies that hold nothing.
     */
    default CompletableFuture<Void> flush() {
        return CompletableFuture.completedFuture(null);
    }

    /** Counts of conflicts, retries and refusals so far, and the buffer's state; for metrics and health. */
    default StrategyStatistics.Activity activity() {
        return StrategyStatistics.Activity.NONE;
    }

    /**
     * The value read after an increment that was already taken (into a buffer, a log, or a committed row). Such an
     * increment must never be reported as "not applied": a read that fails, however surely it wrote nothing itself,
     * becomes a {@link CounterStoreException} ({@code mayHaveBeenApplied()} true) that says the increment was taken.
     */
    static long readAfterTaken(CounterName name, long delta, LongSupplier read) {
        try {
            return read.getAsLong();
        } catch (RuntimeException e) {
            throw new CounterStoreException(
                    "Counter '" + name + "' was incremented by " + delta
                            + " (do not repeat it), but its value could not be read: " + e.getMessage(),
                    e);
        }
    }

    /** Releases resources; a strategy that holds unwritten increments writes them first. */
    @Override
    default void close() {}
}
