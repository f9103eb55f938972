package dev.counters.strategy;

import org.jspecify.annotations.Nullable;

/**
 * What a strategy has done since it started and, for write-behind strategies, what it holds now: the raw material
 * of metrics and health checks. Counts only grow.
 *
 * @param conflicts compare-and-set attempts that found a newer version (optimistic)
 * @param retries attempts repeated after a conflict or a failure
 * @param contentionFailures increments refused with {@link dev.counters.CounterContentionException}
 * @param buffer the state of the buffer, for strategies that have one; otherwise null
 */
public record StrategyActivity(long conflicts, long retries, long contentionFailures, @Nullable BufferActivity buffer) {

    /** A strategy with nothing to report. */
    public static final StrategyActivity NONE = new StrategyActivity(0, 0, 0, null);
}
