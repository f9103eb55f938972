package dev.counters.internal.ratelimit;

import dev.counters.RateLimit;
import dev.counters.internal.strategy.StrategyContext;

/** Fixed windows, calendar quotas and sliding windows, each window of a key a bounded counter. Work package A2. */
final class WindowLimiter {

    private WindowLimiter() {}

    /** The limiter of windows for {@code limit} ({@link RateLimit.Algorithm#FIXED_WINDOW} or SLIDING_WINDOW). */
    static KeyLimiter create(StrategyContext context, String limiter, RateLimit limit) {
        throw new UnsupportedOperationException("not yet: issue 35, work package A2");
    }
}
