package dev.counters;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Locale;
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
 * @param permits how many permits per period, at least 1 and at most one a nanosecond
 * @param period the period, whole milliseconds up to {@link #MAX_PERIOD}; for a calendar quota its nominal length (a
 *     day, 7 days, 31 days)
 * @param burst GCRA: how many permits a full bucket holds, 1 to {@code permits}; a window's is {@code permits}
 * @param algorithm the algorithm
 * @param calendar a calendar quota's unit ({@link Algorithm#FIXED_WINDOW} only); null for windows of {@code period}
 * @param zone where a calendar quota's days start; UTC otherwise
 * @param subWindows {@link Algorithm#SLIDING_WINDOW} only: slices per period, 2 to 60, of equal length; 1 otherwise
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

    /** The longest period: a year, so that every time GCRA computes fits in nanoseconds since the epoch. */
    public static final Duration MAX_PERIOD = Duration.ofDays(366);

    public RateLimit {
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(algorithm, "algorithm");
        zone = Objects.requireNonNull(zone, "zone").normalized(); // "UTC", "Z" and "Etc/UTC" are one zone
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        if (period.isNegative() || period.isZero() || period.compareTo(MAX_PERIOD) > 0) {
            throw new IllegalArgumentException("period must be more than 0 and at most 366 days, was " + period);
        }
        if (period.getNano() % 1_000_000 != 0) {
            throw new IllegalArgumentException("period must be whole milliseconds, was " + period);
        }
        if (permits > period.toNanos()) {
            throw new IllegalArgumentException(
                    "permits must be at most one a nanosecond, was " + permits + " in " + period);
        }
        if (algorithm == Algorithm.GCRA ? burst < 1 || burst > permits : burst != permits) {
            throw new IllegalArgumentException(
                    algorithm == Algorithm.GCRA
                            ? "burst must be 1 to the permits (" + permits + "), was " + burst
                            : "a burst is for GCRA only: a window's burst is its permits (" + permits + "), was "
                                    + burst);
        }
        if (calendar != null) {
            if (algorithm != Algorithm.FIXED_WINDOW) {
                throw new IllegalArgumentException("a calendar quota (" + unit(calendar) + ") is a fixed window, not "
                        + algorithm.name().toLowerCase(Locale.ROOT));
            }
            if (!period.equals(nominal(calendar))) {
                throw new IllegalArgumentException(
                        "the period of a quota per " + unit(calendar) + " is " + nominal(calendar) + ", was " + period);
            }
        } else if (!zone.equals(ZoneOffset.UTC)) {
            throw new IllegalArgumentException("a zone is for calendar quotas only, was " + zone);
        }
        if (algorithm == Algorithm.SLIDING_WINDOW ? subWindows < 2 || subWindows > 60 : subWindows != 1) {
            throw new IllegalArgumentException(
                    algorithm == Algorithm.SLIDING_WINDOW
                            ? "a sliding window has 2 to 60 sub-windows, was " + subWindows
                            : "sub-windows are for sliding windows only (1 otherwise), was " + subWindows);
        }
        if (period.toNanos() % subWindows != 0) {
            throw new IllegalArgumentException(
                    "a sliding window's period must split into " + subWindows + " equal sub-windows, was " + period);
        }
    }

    /** {@code permits} per {@code period} by GCRA, with a burst of {@code permits}. */
    public static RateLimit of(long permits, Duration period) {
        return new RateLimit(permits, period, permits, Algorithm.GCRA, null, ZoneOffset.UTC, 1);
    }

    /** A calendar quota: {@code permits} per day, week or month, starting at midnight in {@code zone}. */
    public static RateLimit perCalendar(long permits, CalendarUnit unit, ZoneId zone) {
        Objects.requireNonNull(unit, "unit");
        return new RateLimit(permits, nominal(unit), permits, Algorithm.FIXED_WINDOW, unit, zone, 1);
    }

    /**
     * Reads a limit as written in an annotation or in {@code application.yml}: {@code <permits>/<period>}, the period
     * a number and a unit ({@code ms s m h d}; the number may be left out for 1) or a calendar unit ({@code day week
     * month}, then optionally {@code @<zone>}), then optionally {@code burst <n>}: {@code 100/1m}, {@code 5/s},
     * {@code 20/10s burst 5}, {@code 10000/month@Europe/Berlin}. A calendar unit makes a fixed-window quota; the
     * other algorithms are chosen with {@link #withAlgorithm}, or by a last word as {@link #toString} writes them:
     * {@code fixed-window}, {@code sliding-window}, or {@code sliding-window <sub-windows>} ({@code 100/1m
     * sliding-window 6}).
     *
     * @throws IllegalArgumentException naming the part that is wrong
     */
    public static RateLimit parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        try {
            return read(spec.trim().split("\\s+", -1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "'" + spec + "' is not a rate limit (<permits>/<period>, as 100/1m, 5/s, 20/10s burst 5,"
                            + " 10000/month@Europe/Berlin): " + e.getMessage(),
                    e);
        }
    }

    private static RateLimit read(String[] words) {
        String rate = words[0];
        int slash = rate.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException(
                    rate.isEmpty() ? "it is empty" : "'" + rate + "' has no '/' between the permits and the period");
        }
        long permits = number(rate.substring(0, slash), "the number of permits");
        String period = rate.substring(slash + 1);
        int at = period.indexOf('@');
        String zone = at < 0 ? null : period.substring(at + 1);
        if (at >= 0) {
            period = period.substring(0, at);
        }
        CalendarUnit calendar = calendarUnit(period);
        RateLimit limit;
        if (calendar != null) {
            limit = perCalendar(permits, calendar, zone == null ? ZoneOffset.UTC : zoneId(zone));
        } else if (zone != null) {
            throw new IllegalArgumentException(
                    "the zone '@" + zone + "' is for a calendar unit (day, week, month) only");
        } else {
            limit = of(permits, duration(period));
        }
        int i = 1;
        if (i < words.length && words[i].equals("burst")) {
            if (i + 1 == words.length) {
                throw new IllegalArgumentException("'burst' has no number after it");
            }
            limit = limit.withBurst(number(words[i + 1], "the burst"));
            i += 2;
        }
        if (i < words.length && (words[i].equals("fixed-window") || words[i].equals("sliding-window"))) {
            if (limit.burst() != limit.permits()) {
                throw new IllegalArgumentException("a burst is for GCRA only, not a " + words[i]);
            }
            limit = limit.withAlgorithm(
                    words[i].equals("fixed-window") ? Algorithm.FIXED_WINDOW : Algorithm.SLIDING_WINDOW);
            i++;
            if (i < words.length && limit.algorithm() == Algorithm.SLIDING_WINDOW) {
                limit = limit.withSubWindows(
                        (int) Math.min(number(words[i], "the number of sub-windows"), Integer.MAX_VALUE));
                i++;
            }
        }
        if (i < words.length) {
            throw new IllegalArgumentException("'" + words[i] + "' is not 'burst <n>', 'fixed-window' or"
                    + " 'sliding-window [<sub-windows>]' in that order");
        }
        return limit;
    }

    private static long number(String text, String what) {
        if (text.isEmpty() || text.length() > 18 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(what + " '" + text + "' is not a whole number");
        }
        return Long.parseLong(text);
    }

    private static @Nullable CalendarUnit calendarUnit(String period) {
        for (CalendarUnit unit : CalendarUnit.values()) {
            if (unit(unit).equals(period)) {
                return unit;
            }
        }
        return null;
    }

    private static ZoneId zoneId(String zone) {
        try {
            return ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("the zone '@" + zone + "' is not a known zone", e);
        }
    }

    private static final String[] UNITS = {"d", "h", "m", "s", "ms"};
    private static final Duration[] UNIT_LENGTHS = {
        Duration.ofDays(1), Duration.ofHours(1), Duration.ofMinutes(1), Duration.ofSeconds(1), Duration.ofMillis(1)
    };

    private static Duration duration(String period) {
        int digits = 0;
        while (digits < period.length() && Character.isDigit(period.charAt(digits))) {
            digits++;
        }
        String unit = period.substring(digits);
        for (int u = 0; u < UNITS.length; u++) {
            if (UNITS[u].equals(unit)) {
                long count = digits == 0 ? 1 : number(period.substring(0, digits), "the period's number");
                if (count > MAX_PERIOD.dividedBy(UNIT_LENGTHS[u])) {
                    throw new IllegalArgumentException("the period '" + period + "' is longer than 366 days");
                }
                return UNIT_LENGTHS[u].multipliedBy(count);
            }
        }
        throw new IllegalArgumentException("the period '" + period
                + "' is not a number and a unit (ms, s, m, h, d) or a calendar unit (day, week, month)");
    }

    private static Duration nominal(CalendarUnit unit) {
        return switch (unit) {
            case DAY -> Duration.ofDays(1);
            case WEEK -> Duration.ofDays(7);
            case MONTH -> Duration.ofDays(31);
        };
    }

    private static String unit(CalendarUnit unit) {
        return unit.name().toLowerCase(Locale.ROOT);
    }

    public RateLimit withBurst(long burst) {
        return new RateLimit(permits, period, burst, algorithm, calendar, zone, subWindows);
    }

    /** This limit by {@code algorithm}: the burst of GCRA is {@code permits}, a sliding window has 10 slices. */
    public RateLimit withAlgorithm(Algorithm algorithm) {
        if (algorithm == this.algorithm) {
            return this;
        }
        return new RateLimit(
                permits,
                period,
                permits,
                algorithm,
                calendar,
                zone,
                algorithm == Algorithm.SLIDING_WINDOW ? DEFAULT_SUB_WINDOWS : 1);
    }

    public RateLimit withSubWindows(int subWindows) {
        return new RateLimit(permits, period, burst, algorithm, calendar, zone, subWindows);
    }

    /**
     * As {@link #parse} reads it: {@code 100/1m}, {@code 10000/month@Europe/Berlin}, with the burst when it is not the
     * permits, and the algorithm when it is neither GCRA nor a calendar quota's: {@code 100/1m sliding-window 6}.
     */
    @Override
    public String toString() {
        StringBuilder text = new StringBuilder().append(permits).append('/');
        if (calendar != null) {
            text.append(unit(calendar));
            if (!zone.equals(ZoneOffset.UTC)) {
                text.append('@').append(zone.getId());
            }
            return text.toString();
        }
        int u = 0;
        while (!period.equals(UNIT_LENGTHS[u].multipliedBy(period.dividedBy(UNIT_LENGTHS[u])))) {
            u++; // whole milliseconds at least, so it stops at ms
        }
        text.append(period.dividedBy(UNIT_LENGTHS[u])).append(UNITS[u]);
        if (burst != permits) {
            text.append(" burst ").append(burst);
        }
        if (algorithm == Algorithm.FIXED_WINDOW) {
            text.append(" fixed-window");
        } else if (algorithm == Algorithm.SLIDING_WINDOW) {
            text.append(" sliding-window");
            if (subWindows != DEFAULT_SUB_WINDOWS) {
                text.append(' ').append(subWindows);
            }
        }
        return text.toString();
    }
}
