package dev.counters;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A counter kept within bounds ({@link dev.counters.strategy.BoundedSettings}): obtained from
 * {@link CounterService#bounded(String)}. A change that would leave {@code [min, max]} is refused and writes nothing;
 * the value read is always within them. Changes under an {@link IdempotencyKey} are made at most once, and a repeat
 * returns the first answer, a refusal included. Thread-safe.
 *
 * <p>Reservations hold a change until it is confirmed or given back: the checkout of a shop holds the item while the
 * customer pays, {@link #confirm} makes it final, {@link #release} gives it back, and a hold neither confirmed nor
 * released before its time to live goes back by itself.
 */
public interface BoundedCounter {

    CounterName name();

    /** The lower bound, or null. */
    @Nullable
    Long min();

    /** The upper bound, or null. */
    @Nullable
    Long max();

    /** See {@link CounterService#tryIncrement(String, long)}. */
    boolean tryIncrement(long delta);

    /** See {@link CounterService#tryIncrement(String, long, IdempotencyKey)}. */
    boolean tryIncrement(long delta, IdempotencyKey key);

    /** As {@link #tryIncrement(long)}, with the value after it and the room left: one read more. */
    BoundedIncrement tryIncrementAndGet(long delta);

    /** As {@link #tryIncrement(long, IdempotencyKey)}, with the value after it and the room left. */
    BoundedIncrement tryIncrementAndGet(long delta, IdempotencyKey key);

    /** See {@link CounterService#reserve(String, long, Duration, IdempotencyKey)}. */
    Hold reserve(long delta, Duration ttl, IdempotencyKey key);

    /**
     * Makes the hold under {@code key} final, unless it expired ({@link HoldStatus#EXPIRED}: reserve again) or was
     * released. Idempotent: returns the hold as it stands.
     *
     * @throws IllegalArgumentException if no hold of this counter is recorded under the key
     */
    Hold confirm(IdempotencyKey key);

    /**
     * Gives the hold under {@code key} back, unless it was confirmed (returning confirmed stock is a change of its
     * own). Idempotent: returns the hold as it stands.
     *
     * @throws IllegalArgumentException if no hold of this counter is recorded under the key
     */
    Hold release(IdempotencyKey key);

    /** The hold recorded under {@code key}, if there is one for this counter. */
    Optional<Hold> hold(IdempotencyKey key);

    /** The value, bounds and held units from one consistent read, and where the room lies. */
    BoundedState state();
}
