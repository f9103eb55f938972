package dev.counters;

import java.time.Duration;

/**
 * A limiter's answer ({@link RateLimiter#tryAcquire}).
 *
 * @param outcome admitted or not, and whether the database decided
 * @param remaining permits the key may still take now, after this decision; never more than it truly has
 * @param retryAfter when refused, how long until the permits asked for may be admitted; zero when admitted
 * @param resetAfter how long until the key has its whole limit again (GCRA) or its window ends (windows)
 * @param limit the limit that decided
 */
public record RateDecision(Outcome outcome, long remaining, Duration retryAfter, Duration resetAfter, RateLimit limit) {

    /** How a decision was made. */
    public enum Outcome {
        /** Admitted by the database. */
        ALLOWED,
        /** Refused: the key has no permits for it now. */
        REFUSED,
        /** Admitted without the database, which did not answer, from the node's fail-open budget. */
        FAIL_OPEN,
        /** Refused because the database did not answer (or its answer was lost), failing closed. */
        FAIL_CLOSED
    }

    /** Whether the request may go ahead: {@link Outcome#ALLOWED} or {@link Outcome#FAIL_OPEN}. */
    public boolean allowed() {
        return outcome == Outcome.ALLOWED || outcome == Outcome.FAIL_OPEN;
    }
}
