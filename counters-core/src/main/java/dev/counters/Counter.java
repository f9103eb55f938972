package dev.counters;

import java.util.concurrent.CompletableFuture;

/**
 * One counter, with its name validated and its strategy chosen: the fastest way to increment the same
 * counter many times. Obtained from {@link CounterService#counter(String)}; thread-safe.
 */
public interface Counter {

    CounterName name();

    /** The name of the strategy that stores this counter (for example {@code atomic}). */
    String strategy();

    default void increment() {
        increment(1);
    }

    /** See {@link CounterService#increment(String, long)}. */
    void increment(long delta);

    /** See {@link CounterService#increment(String, long, IdempotencyKey)}. */
    void increment(long delta, IdempotencyKey key);

    /** See {@link CounterService#incrementAndGet(String, long, IdempotencyKey)}. */
    long incrementAndGet(long delta, IdempotencyKey key);

    /** See {@link CounterService#incrementDurably(String, long)}. */
    CompletableFuture<Void> incrementDurably(long delta);

    /** See {@link CounterService#incrementAndGet(String, long)}. */
    long incrementAndGet(long delta);

    /** See {@link CounterService#tryIncrement(String, long)}. */
    boolean tryIncrement(long delta);

    /** See {@link CounterService#tryIncrement(String, long, IdempotencyKey)}. */
    boolean tryIncrement(long delta, IdempotencyKey key);

    /** See {@link CounterService#get(String)}. */
    long get();

    /** See {@link CounterService#getExact(String)}. */
    long getExact();

    /** See {@link CounterService#delete(String)}. */
    void delete();
}
