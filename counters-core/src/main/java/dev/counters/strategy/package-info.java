/**
 * Choosing a strategy: {@link dev.counters.strategy.Strategies} and the settings of each strategy. The strategies
 * themselves are internal.
 */
@NullMarked
package dev.counters.strategy;

import org.jspecify.annotations.NullMarked;
