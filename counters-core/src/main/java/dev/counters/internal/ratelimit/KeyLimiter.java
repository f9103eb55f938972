package dev.counters.internal.ratelimit;

import dev.counters.RateDecision;

/**
 * One algorithm's decisions for one limiter, on the store. Keys arrive as storage keys (see the limiter that calls
 * it), permits checked. A store failure is thrown as it came: the caller turns it into an answer by the rule's
 * {@link dev.counters.RateLimitRule.OnStoreFailure}, and never into {@link RateDecision.Outcome#REFUSED} of what may
 * have been taken.
 */
interface KeyLimiter extends AutoCloseable {

    /** {@link RateDecision.Outcome#ALLOWED} or {@link RateDecision.Outcome#REFUSED}, decided by the database. */
    RateDecision tryAcquire(String key, long permits);

    RateDecision peek(String key);

    void reset(String key);

    /** Stops any background work; decisions after it are not asked for. */
    @Override
    default void close() {}
}
