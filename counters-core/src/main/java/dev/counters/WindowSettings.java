package dev.counters;

import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * Time windows of a counter: each increment lands in the window of its time, and windows older than the retention
 * are removed in the background. Windows are aligned to midnight in {@code zone} (UTC unless set): with 1-hour
 * windows, 10:00 to 11:00; a 1-day window is a calendar day there, 23 or 25 hours long when the clocks change.
 *
 * @param size the window's length: from 1 second to 1 day, a whole number of seconds that divides a day
 * @param retention how long a window is kept after it ends, at least one window
 * @param zone the zone whose midnight windows are aligned to
 */
public record WindowSettings(Duration size, Duration retention, ZoneId zone) {

    private static final Duration DAY = Duration.ofDays(1);

    /** Windows kept unless set: an hour of 1-minute windows, a day of 24 hourly ones. */
    public static final int DEFAULT_RETAINED_WINDOWS = 60;

    public WindowSettings {
        Objects.requireNonNull(size, "size");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(zone, "zone");
        if (size.compareTo(Duration.ofSeconds(1)) < 0
                || size.compareTo(DAY) > 0
                || size.toNanosPart() != 0
                || DAY.toSeconds() % size.toSeconds() != 0) {
            throw new IllegalArgumentException("window must be a whole number of seconds from 1s to 1d that divides a"
                    + " day (1m, 5m, 1h, 1d, ...), was " + size);
        }
        if (retention.compareTo(size) < 0) {
            throw new IllegalArgumentException(
                    "retention must be at least one window (" + size + "), was " + retention);
        }
    }

    /** Windows of {@code size}, kept for {@value #DEFAULT_RETAINED_WINDOWS} windows, aligned in UTC. */
    public static WindowSettings of(Duration size) {
        Objects.requireNonNull(size, "size");
        return new WindowSettings(size, size.multipliedBy(DEFAULT_RETAINED_WINDOWS), ZoneOffset.UTC);
    }

    public WindowSettings withRetention(Duration retention) {
        return new WindowSettings(size, retention, zone);
    }

    /** Keeps {@code windows} windows: a retention of that many times the window. */
    public WindowSettings withRetainedWindows(int windows) {
        if (windows < 1) {
            throw new IllegalArgumentException("retained windows must be >= 1, was " + windows);
        }
        return withRetention(size.multipliedBy(windows));
    }

    public WindowSettings withZone(ZoneId zone) {
        return new WindowSettings(size, retention, zone);
    }
}
