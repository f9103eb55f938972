package dev.counters.internal.service;

import dev.counters.CounterName;
import dev.counters.WindowSettings;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * The arithmetic of one rule's windows: where a window starts and ends, and the name it is stored under. A window is
 * a counter of its own, named {@code <counter>:w:<start in UTC>} ({@code api.calls:w:20261123T140500Z}), so that any
 * strategy stores it, the names of a counter's windows sort by time, and the purge finds them by prefix.
 */
public final class Windows {

    static final String MARK = ":w:";
    private static final DateTimeFormatter START =
            DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    /** The characters a window adds to its counter's name. */
    static final int SUFFIX_LENGTH = MARK.length() + "20261123T140500Z".length();

    final WindowSettings settings;
    /** The rule that gives them, for messages. */
    final String rule;

    private final long sizeSeconds;

    public Windows(WindowSettings settings) {
        this(settings, "");
    }

    public Windows(WindowSettings settings, String rule) {
        this.settings = settings;
        this.rule = rule;
        this.sizeSeconds = settings.size().toSeconds();
    }

    /** The start of the window that holds {@code instant}. */
    Instant start(Instant instant) {
        Instant midnight = midnightOf(instant.atZone(settings.zone()).toLocalDate());
        long intoDay = Duration.between(midnight, instant).toSeconds();
        return midnight.plusSeconds(intoDay / sizeSeconds * sizeSeconds);
    }

    /** The end of the window starting at {@code start}: the next window's start (a day may be 23 or 25 hours). */
    Instant end(Instant start) {
        Instant nextMidnight =
                midnightOf(start.atZone(settings.zone()).toLocalDate().plusDays(1));
        Instant end = start.plusSeconds(sizeSeconds);
        return end.isAfter(nextMidnight) || sizeSeconds == Duration.ofDays(1).toSeconds() ? nextMidnight : end;
    }

    private Instant midnightOf(LocalDate day) {
        return day.atStartOfDay(settings.zone()).toInstant();
    }

    /**
     * Refuses an increment of {@code counter} now when the window it would land in may be purged before the
     * increment is written: the window is picked by this JVM's clock ({@code now}), while the purge goes by steady
     * time (the database's clock), so a clock lagging steady time by more than half the retention writes windows
     * that may already be due.
     *
     * @throws IllegalStateException saying by how much the clock lags; nothing was written
     */
    void checkClock(CounterName counter, Instant now, Instant steady) {
        Duration lag = Duration.between(now, steady);
        if (lag.compareTo(settings.retention().dividedBy(2)) > 0) {
            throw new IllegalStateException("Counter '" + counter + "' is windowed and this JVM's clock (" + now
                    + ") lags the clock purges go by (the database's: " + steady + ") by " + lag
                    + ", more than half its windows' retention ("
                    + settings.retention() + "): its windows could be purged as they are written, so the increment"
                    + " is refused and nothing was written. Have this host's clock synchronised (NTP)");
        }
    }

    /** The stored name of {@code counter}'s window starting at {@code start}. */
    static CounterName name(CounterName counter, Instant start) {
        return CounterName.of(counter.value() + MARK + START.format(start));
    }

    /**
     * Checks that a counter can have windows: its windows' names must fit, and must not be mistaken for another
     * counter's windows.
     */
    static void check(CounterName counter) {
        if (counter.value().contains(MARK)) {
            throw new IllegalArgumentException("Counter name '" + counter + "' is windowed and contains '" + MARK
                    + "', which marks the names of windows");
        }
        if (counter.value().length() + SUFFIX_LENGTH > CounterName.MAX_LENGTH) {
            throw new IllegalArgumentException("Counter name '" + counter + "' is windowed, so at most "
                    + (CounterName.MAX_LENGTH - SUFFIX_LENGTH) + " characters long (its windows add "
                    + SUFFIX_LENGTH + "); it has " + counter.value().length());
        }
    }

    /** The counter and start of a stored window's name; empty for a name that is not a window's. */
    static Optional<Window> parse(CounterName stored) {
        String value = stored.value();
        int mark = value.lastIndexOf(MARK);
        if (mark <= 0 || value.length() - mark != SUFFIX_LENGTH) {
            return Optional.empty();
        }
        try {
            Instant start = START.parse(value.substring(mark + MARK.length()), Instant::from);
            return Optional.of(new Window(CounterName.of(value.substring(0, mark)), start));
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** A stored window: its counter and its start. */
    record Window(CounterName counter, Instant start) {}
}
