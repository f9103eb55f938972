package dev.counters.internal.ratelimit;

import java.util.OptionalLong;

/**
 * What one limiter may admit on this node without the database: {@code permits} per window of the period (on steady
 * time), then nothing until the next window. So while the database does not answer, a limiter admits at most the
 * limit (what it admitted before) plus this per node and period.
 */
final class FailOpenBudget {

    private final long permits;
    private final long periodNanos;
    private long window = Long.MIN_VALUE;
    private long used;

    FailOpenBudget(long permits, long periodNanos) {
        this.permits = permits;
        this.periodNanos = periodNanos;
    }

    /** Takes {@code n} permits at {@code now} if the window has them: what is left of it then. */
    synchronized OptionalLong take(long n, long now) {
        long left = left(now);
        if (n > left) {
            return OptionalLong.empty();
        }
        used += n;
        return OptionalLong.of(left - n);
    }

    /** What is left of the window of {@code now}. */
    synchronized long left(long now) {
        long current = Math.floorDiv(now, periodNanos);
        if (current != window) {
            window = current;
            used = 0;
        }
        return permits - used;
    }

    /** Nanoseconds from {@code now} to the end of its window. */
    long untilNextWindow(long now) {
        return periodNanos - Math.floorMod(now, periodNanos);
    }
}
