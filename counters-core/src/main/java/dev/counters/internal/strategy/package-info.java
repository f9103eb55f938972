/**
 * The strategies: each one turns increments into store writes in its own way, trading exactness, freshness and
 * durability for throughput. Their contract ({@link dev.counters.internal.strategy.CounterStrategy},
 * {@link dev.counters.internal.strategy.StrategyContext}) lives here too, for contributors adding a strategy. Not an
 * API: users pick a strategy through {@link dev.counters.strategy.Strategies}.
 */
@NullMarked
package dev.counters.internal.strategy;

import org.jspecify.annotations.NullMarked;
