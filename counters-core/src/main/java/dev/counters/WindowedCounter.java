package dev.counters;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * The windows of a counter configured with {@link WindowSettings}, for reading: obtained from
 * {@link CounterService#windowed(String)}. Increments go through the {@link CounterService} as for any counter, and
 * land in the window of their time. Each window is a counter of its own to the strategy, which keeps its guarantees
 * per window. A window past the retention reads 0 once it is removed.
 */
public interface WindowedCounter {

    CounterName name();

    WindowSettings settings();

    /** The value of the window now under way. */
    long current();

    /** The value of the window that holds {@code instant}. */
    long at(Instant instant);

    /**
     * The sum over the windows that overlap the last {@code duration}, the current one included: every increment of the
     * last {@code duration}, and some older ones in the oldest window it touches (up to one window more). For "at most
     * N in the last minute" with 1-minute windows, this is the last two windows; smaller windows make it tighter.
     */
    long sumOfLast(Duration duration);

    /**
     * The windows that overlap {@code [from, to)}, oldest first, each with its value (0 where nothing was counted):
     * a series for a chart. At most 10,000 windows.
     */
    List<Window> series(Instant from, Instant to);

    /** The last {@code windows} windows by the service's clock, the current one last: a chart of the recent past. */
    List<Window> last(int windows);

    /** One window: {@code [start, end)} and its value. */
    record Window(Instant start, Instant end, long value) {}
}
