package dev.counters.spi;

import java.util.OptionalLong;

/**
 * Rate limits by GCRA (the generic cell rate algorithm): a key of a limiter has one stored time, its theoretical
 * arrival time ({@code tat}, nanoseconds since the epoch on the database's clock). A request costing {@code cost}
 * nanoseconds of emission time is admitted at {@code now} if {@code max(tat, now) + cost <= now + burst}; then
 * {@code tat} becomes {@code max(tat, now) + cost}. An absent key is a key whose {@code tat} is at or before
 * {@code now}: a full bucket. So each decision is one guarded write, with no read before it and no compare-and-set
 * loop, and a key whose {@code tat} has passed can be deleted without changing any decision.
 *
 * <p>Every method is one transaction (or one autocommit statement) and, as every store method, tried once.
 */
public interface RateLimits {

    /**
     * Admits a request if the key's time allows it, in one guarded write: creates the key with {@code now + cost} if
     * it is absent, otherwise advances its {@code tat} to {@code max(tat, now) + cost} if that is at most
     * {@code now + burst}, otherwise writes nothing.
     *
     * @param costNanos the request's emission time, more than 0 and at most {@code burstNanos}
     * @param burstNanos how far ahead of {@code now} the key's time may run
     * @return whether it was admitted, and the key's {@code tat} after the write (admitted) or as found (refused)
     */
    Gcra acquire(String limiter, String key, long costNanos, long burstNanos, long nowNanos);

    /** The key's {@code tat}, or empty if the key is absent. */
    OptionalLong tat(String limiter, String key);

    /** Forgets the key: its next request finds a full bucket. Returns whether it existed. */
    boolean delete(String limiter, String key);

    /**
     * Deletes at most {@code limit} keys, of any limiter, whose {@code tat} is before {@code before}: idle keys, whose
     * absence decides as they would. A key advanced meanwhile past {@code before} is kept.
     *
     * @return how many were deleted
     */
    int deleteIdle(long beforeNanos, int limit);

    /** A decision: whether the request was admitted, and the key's {@code tat} after it or as found. */
    record Gcra(boolean admitted, long tatNanos) {}
}
