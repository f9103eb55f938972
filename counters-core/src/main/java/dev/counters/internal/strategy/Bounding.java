package dev.counters.internal.strategy;

import dev.counters.BoundedIncrement;
import dev.counters.BoundedState;
import dev.counters.CounterName;
import dev.counters.Hold;
import dev.counters.HoldStatus;
import dev.counters.IdempotencyKey;
import dev.counters.strategy.BoundedSettings;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A strategy whose counters are kept within bounds, and refuse a change that would leave them
 * ({@link dev.counters.CounterService#tryIncrement}, {@link dev.counters.BoundedCounter}). Names arrive validated,
 * deltas non-zero, keys non-null where required, and a time to live within the settings' limit.
 */
public interface Bounding {

    BoundedSettings settings();

    /**
     * Adds {@code delta} if the value stays within the bounds; under {@code key} at most once, a repeat returning the
     * first answer.
     *
     * @param needsValue whether the caller wants the value and the room left (one read more)
     * @return the answer; {@code value} and {@code remaining} are 0 unless {@code needsValue} or refused
     */
    BoundedIncrement tryIncrement(CounterName name, long delta, @Nullable IdempotencyKey key, boolean needsValue);

    /** Holds {@code delta} until it is confirmed, released or {@code ttl} passes; {@link HoldStatus#REFUSED} if it does not fit. */
    Hold reserve(CounterName name, long delta, Duration ttl, IdempotencyKey key);

    /**
     * Moves the hold under {@code key} to {@code to} ({@link HoldStatus#CONFIRMED} or {@link HoldStatus#RELEASED}),
     * or leaves it as it stands when it can no longer move there.
     *
     * @throws IllegalArgumentException when no hold of this counter is recorded under the key
     */
    Hold settle(CounterName name, IdempotencyKey key, HoldStatus to);

    Optional<Hold> hold(CounterName name, IdempotencyKey key);

    BoundedState state(CounterName name);
}
