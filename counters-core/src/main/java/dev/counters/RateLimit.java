package dev.counters;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How many permits a limiter gives a key, and how: {@code permits} per {@code period}, by one of three algorithms.
 *
 * <ul>
 *   <li>{@link Algorithm#GCRA} (the default): a token bucket of {@code burst} permits refilled evenly, one every
 *       {@code period / permits}; in any span of {@code period} at most {@code permits + burst - 1} are admitted, and
 *       at most {@code burst} at once ({@code burst} 1: evenly spaced, never more than {@code permits} in a span).
 *   <li>{@link Algorithm#FIXED_WINDOW}: at most {@code permits} in each window of {@code period} (aligned on the
 *       epoch), or of a {@link CalendarUnit} in {@code zone}: a calendar quota, 10,000 a month, say.
 *   <li>{@link Algorithm#SLIDING_WINDOW}: {@code period} in {@code subWindows} slices; at most {@code permits} in
 *       any {@code subWindows} consecutive slices.
 * </ul>
 *
 * @param permits how many permits per period, at least 1
 * @param period the period; for a calendar quota its nominal length (a day, 7 days, 31 days)
 * @param burst GCRA only: how many permits a full bucket holds, 1 to {@code permits}
 * @param algorithm the algorithm
 * @param calendar a calendar quota's unit ({@link Algorithm#FIXED_WINDOW} only); null for windows of {@code period}
 * @param zone where a calendar quota's days start; UTC otherwise
 * @param subWindows {@link Algorithm#SLIDING_WINDOW} only: slices per period, 2 to 60; 1 otherwise
 */
public record RateLimit(
        long permits,
        Duration period,
        long burst,
        Algorithm algorithm,
        @Nullable CalendarUnit calendar,
        ZoneId zone,
        int subWindows) {

    /** The algorithms; see {@link RateLimit}. */
    public enum Algorithm {
        GCRA,
        FIXED_WINDOW,
        SLIDING_WINDOW
    }

    /** The calendar units of a quota; a week starts on Monday. */
    public enum CalendarUnit {
        DAY,
        WEEK,
        MONTH
    }

    /** Slices per period of a sliding window, unless set. */
    public static final int DEFAULT_SUB_WINDOWS = 10;

    public RateLimit {
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(algorithm, "algorithm");
        Objects.requireNonNull(zone, "zone");
        throw new UnsupportedOperationException("not yet: issue 35, work package A");
    }

    /** {@code permits} per {@code period} by GCRA, with a burst of {@code permits}. */
    public static RateLimit of(long permits, Duration period) {
        throw new UnsupportedOperationException("not yet: issue 35, work package A");
    }

    /** A calendar quota: {@code permits} per day, week or month, starting at midnight in {@code zone}. */
    public static RateLimit perCalendar(long permits, CalendarUnit unit, ZoneId zone) {
        throw new UnsupportedOperationException("not yet: issue 35, work package A");
    }

    /**
     * Reads a limit as written in an annotation or in {@code application.yml}: {@code <permits>/<period>}, the period
     * a number and a unit ({@code ms s m h d}; the number may be left out for 1) or a calendar unit ({@code day week
     * month}, then optionally {@code @<zone>}), then optionally {@code burst <n>}: {@code 100/1m}, {@code 5/s},
     * {@code 20/10s burst 5}, {@code 10000/month@Europe/Berlin}. A calendar unit makes a fixed-window quota; the
     * other algorithms are chosen with {@link #withAlgorithm}.
     *
     * @throws IllegalArgumentException naming the part that is wrong
     */
    public static RateLimit parse(String spec) {
        throw new UnsupportedOperationException("not yet: issue 35, work package A");
    }

    public RateLimit withBurst(long burst) {
        return new RateLimit(permits, period, burst, algorithm, calendar, zone, subWindows);
    }

    /** This limit by {@code algorithm}: the burst of GCRA is {@code permits}, a sliding window has 10 slices. */
    public RateLimit withAlgorithm(Algorithm algorithm) {
        throw new UnsupportedOperationException("not yet: issue 35, work package A");
    }

    public RateLimit withSubWindows(int subWindows) {
        return new RateLimit(permits, period, burst, algorithm, calendar, zone, subWindows);
    }

    /** As {@link #parse}: {@code 100/1m}, {@code 10000/month@Europe/Berlin}, with the burst when it is not the permits. */
    @Override
    public String toString() {
        throw new UnsupportedOperationException("not yet: issue 35, work package A");
    }
}
