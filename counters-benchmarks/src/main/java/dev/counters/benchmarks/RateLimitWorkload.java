package dev.counters.benchmarks;

import java.time.Duration;
import javax.sql.DataSource;

/**
 * A rate limiter the rate-limit report measures: one of this library's, or Bucket4j's, on tables of its own. Several
 * processes open the same limiter by the same {@code tables} name: the first creates them.
 */
interface RateLimitWorkload extends AutoCloseable {

    /**
     * Takes one permit for {@code key}: true if admitted, false if refused.
     *
     * @throws Exception when the limiter could not decide (the database failed)
     */
    boolean tryAcquire(String key) throws Exception;

    @Override
    void close() throws Exception;

    /**
     * {@code permits} per {@code period}, a full bucket holding {@code permits} (GCRA and Bucket4j alike: at most
     * {@code 2 × permits - 1} in any span of {@code period}); for a fixed window, {@code permits} per window.
     */
    record Limit(long permits, Duration period) {

        /** The most a limit of this kind admits in any span of {@code period} (fixed windows: in each window). */
        long bound(boolean fixedWindow) {
            return fixedWindow ? permits : 2 * permits - 1;
        }
    }

    /** Opens a limiter; {@code create}: its tables are new (the first process), or already there. */
    @FunctionalInterface
    interface Opener {
        RateLimitWorkload open(
                DataSource dataSource, BenchDatabase database, Limit limit, String tables, boolean create)
                throws Exception;
    }

    /**
     * A named limiter, as chosen on the command line.
     *
     * @param fixedWindow whether its bound is per window rather than per span
     */
    record Kind(String name, String description, boolean fixedWindow, Opener opener) {}
}
