package dev.counters;

import dev.counters.strategy.StrategyActivity;

/**
 * The activity of the strategy serving one configuration rule.
 *
 * @param rule the exact name or pattern the strategy was configured for, or {@link #DEFAULT_RULE}; its number is
 *     bounded by the configuration, so it suits a metric tag where counter names would not
 * @param strategy the strategy's type, for example {@code buffered}
 * @param increments increments accepted since the service started
 * @param activity what the strategy reports of itself
 */
public record StrategyStatistics(String rule, String strategy, long increments, StrategyActivity activity) {

    /** The rule of counters no name or pattern matches. Not a valid counter name, so it cannot clash with one. */
    public static final String DEFAULT_RULE = "(default)";
}
