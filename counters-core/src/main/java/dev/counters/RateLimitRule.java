package dev.counters;

import java.util.Objects;

/**
 * What a rule of the service ({@link CounterServiceBuilder#rateLimit}) gives the limiters whose name is, or matches,
 * its name or pattern.
 *
 * @param limit the limit
 * @param onStoreFailure what a decision is when the database does not answer
 * @param failOpenPermits with {@link OnStoreFailure#OPEN}: how many permits each node admits per period of each
 *     limiter without the database, at most; then it refuses
 */
public record RateLimitRule(RateLimit limit, OnStoreFailure onStoreFailure, long failOpenPermits) {

    /** What a decision is when the database does not answer, or its answer is lost. */
    public enum OnStoreFailure {
        /** Refuse ({@link RateDecision.Outcome#FAIL_CLOSED}): never more than the limit. */
        CLOSED,
        /**
         * Admit ({@link RateDecision.Outcome#FAIL_OPEN}) up to the node's fail-open permits per period: at most the
         * limit plus those permits times the nodes.
         */
        OPEN
    }

    public RateLimitRule {
        Objects.requireNonNull(limit, "limit");
        Objects.requireNonNull(onStoreFailure, "onStoreFailure");
        if (failOpenPermits < 0) {
            throw new IllegalArgumentException("fail-open-permits must be 0 or more, was " + failOpenPermits);
        }
    }

    /** {@code limit}, failing closed; with {@link #failingOpen()} a tenth of the permits (at least 1) fail open. */
    public static RateLimitRule of(RateLimit limit) {
        return new RateLimitRule(limit, OnStoreFailure.CLOSED, Math.max(1, (limit.permits() + 9) / 10));
    }

    public RateLimitRule failingOpen() {
        return new RateLimitRule(limit, OnStoreFailure.OPEN, failOpenPermits);
    }

    public RateLimitRule withFailOpenPermits(long failOpenPermits) {
        return new RateLimitRule(limit, onStoreFailure, failOpenPermits);
    }
}
