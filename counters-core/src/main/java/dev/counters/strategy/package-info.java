/**
 * Choosing a strategy: {@link dev.counters.strategy.StrategySettings}, one record per strategy. The strategies
 * themselves are internal.
 */
@NullMarked
package dev.counters.strategy;

import org.jspecify.annotations.NullMarked;
