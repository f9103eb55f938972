package dev.counters;

/**
 * A limit on how often each key (a user, an API key, an address) may act, kept in the database so that every node
 * shares it ({@link CounterService#rateLimiter}). A decision never waits for permits: it admits or refuses at once,
 * and never throws for the database: a failure is answered by the rule's {@link RateLimitRule.OnStoreFailure}.
 * Keys nobody used for a while are forgotten, as their absence decides the same.
 */
public interface RateLimiter {

    /** The limiter's name. */
    String name();

    RateLimit limit();

    /** Takes one permit for {@code key}, if it has one. */
    default RateDecision tryAcquire(String key) {
        return tryAcquire(key, 1);
    }

    /**
     * Takes {@code permits} for {@code key}, all or none.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1 or above what one decision may take (the burst,
     *     or the permits of a window), or {@code key} is empty; nothing is taken
     */
    RateDecision tryAcquire(String key, long permits);

    /** What {@code key} has now, taking nothing: the outcome is {@link RateDecision.Outcome#ALLOWED} if it has a permit. */
    RateDecision peek(String key);

    /** Forgets what {@code key} took: its next request finds the whole limit. */
    void reset(String key);

    /** How many decisions of this limiter had {@code outcome}, in this process since it started: for metrics. */
    long decisions(RateDecision.Outcome outcome);
}
