package dev.counters;

import java.time.Instant;
import java.util.Objects;

/**
 * A reservation on a bounded counter ({@link CounterService#reserve}): a change applied to the counter's value at
 * once, held until it is confirmed, released, or expires, whichever comes first. Plain data: a process that knows the
 * counter and the key (a payment webhook, say) can settle it with {@link BoundedCounter#confirm(IdempotencyKey)}.
 *
 * @param counter the counter it holds units of
 * @param key the caller's key, which names the hold
 * @param delta the change held: -2 holds two units of stock, +100 a hundred calls of a quota
 * @param expiresAt when the hold expires unless confirmed, by the database's clock
 * @param status where it stands now
 */
public record Hold(CounterName counter, IdempotencyKey key, long delta, Instant expiresAt, HoldStatus status) {

    public Hold {
        Objects.requireNonNull(counter, "counter");
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(status, "status");
    }

    /** The units held, whatever the direction. */
    public long units() {
        return Math.abs(delta);
    }

    /** Whether the units are held now: {@link HoldStatus#HELD}. */
    public boolean held() {
        return status == HoldStatus.HELD;
    }
}
