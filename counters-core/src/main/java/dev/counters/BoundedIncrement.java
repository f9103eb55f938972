package dev.counters;

/**
 * The answer of a change of a bounded counter ({@link BoundedCounter#tryIncrementAndGet}).
 *
 * @param applied whether the change was made; false when it would have left the bounds, and nothing was written
 * @param delta the change asked for
 * @param value the counter's value right after the change, or, when refused, the value that refused it
 * @param remaining how far the value may still move in the direction of {@code delta} (toward {@code min} for a
 *     negative delta), held units aside; {@link Long#MAX_VALUE} when that side has no bound
 */
public record BoundedIncrement(boolean applied, long delta, long value, long remaining) {}
