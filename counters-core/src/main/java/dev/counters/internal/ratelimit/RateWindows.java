package dev.counters.internal.ratelimit;

import dev.counters.CounterName;
import dev.counters.RateLimit;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.TemporalAdjusters;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The windows of a limit: where each starts and ends, and the name of the bounded counter that counts a key's permits
 * in it, {@code <limiter>:<key>:r:<start in UTC, to the nanosecond>}
 * ({@code likes:u42:r:20261126T140500.000000000Z}). A window of a period starts on a multiple of it since the epoch; a
 * calendar quota's at midnight in its zone (a day may be 23 or 25 hours, a week starts on Monday, a month on its
 * first); a sliding window's slices are windows of {@code period / subWindows}.
 */
public final class RateWindows {

    /** Marks a limiter's window in a counter name: reserved, no counter of the application may contain it. */
    public static final String MARK = ":r:";

    private static final DateTimeFormatter START =
            DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss.SSSSSSSSS'Z'").withZone(ZoneOffset.UTC);

    private final RateLimit limit;
    /** A window's (a sub-window's) length; 0 for a calendar quota. */
    private final long sliceNanos;

    RateWindows(RateLimit limit) {
        this.limit = limit;
        this.sliceNanos = limit.calendar() != null ? 0 : limit.period().toNanos() / limit.subWindows();
    }

    /** The start of the window (the sub-window) that holds {@code instant}. */
    Instant start(Instant instant) {
        RateLimit.CalendarUnit unit = limit.calendar();
        if (unit == null) {
            return ofNanos(Math.floorDiv(nanos(instant), sliceNanos) * sliceNanos);
        }
        LocalDate day = instant.atZone(limit.zone()).toLocalDate();
        switch (unit) {
            case WEEK:
                return midnight(day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY)));
            case MONTH:
                return midnight(day.withDayOfMonth(1));
            default:
                return midnight(day);
        }
    }

    /** The end of the window starting at {@code start}: the next one's start. */
    Instant end(Instant start) {
        return shift(start, 1);
    }

    /** The start of the window {@code windows} before the one starting at {@code start}. */
    Instant before(Instant start, int windows) {
        return shift(start, -windows);
    }

    /** Until when the window starting at {@code start} decides anything: its end, or a whole period for a slice. */
    Instant decidesUntil(Instant start) {
        return shift(start, limit.subWindows());
    }

    private Instant shift(Instant start, int windows) {
        RateLimit.CalendarUnit unit = limit.calendar();
        if (unit == null) {
            return ofNanos(nanos(start) + windows * sliceNanos);
        }
        LocalDate day = start.atZone(limit.zone()).toLocalDate();
        switch (unit) {
            case WEEK:
                return midnight(day.plusWeeks(windows));
            case MONTH:
                return midnight(day.plusMonths(windows));
            default:
                return midnight(day.plusDays(windows));
        }
    }

    private Instant midnight(LocalDate day) {
        return day.atStartOfDay(limit.zone()).toInstant(); // the first instant of the day where midnight is skipped
    }

    private static long nanos(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    }

    private static Instant ofNanos(long nanos) {
        return Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L));
    }

    /** The counter of {@code key}'s window starting at {@code start}. */
    static CounterName name(String limiter, String key, Instant start) {
        return CounterName.of(limiter + ":" + key + MARK + START.format(start));
    }

    /** The key of a window's counter of {@code limiter}, or null for another name. */
    static @Nullable String key(String limiter, CounterName name) {
        String value = name.value();
        int mark = value.lastIndexOf(MARK);
        return value.startsWith(limiter + ":") && mark > limiter.length()
                ? value.substring(limiter.length() + 1, mark)
                : null;
    }

    /** The start of a window's counter; empty for a name that is not a window's. */
    static Optional<Instant> start(CounterName name) {
        String value = name.value();
        int mark = value.lastIndexOf(MARK);
        if (mark < 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(START.parse(value.substring(mark + MARK.length()), Instant::from));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /**
     * Refuses a counter's name (or a rule's pattern) that contains {@link #MARK}: such names are the rate limiters'.
     *
     * @throws IllegalArgumentException naming the mark
     */
    public static void checkNotReserved(String nameOrPattern) {
        if (nameOrPattern.contains(MARK)) {
            throw new IllegalArgumentException("Counter name '" + nameOrPattern + "' contains '" + MARK
                    + "', which marks the windows of rate limiters; choose a name without it");
        }
    }
}
