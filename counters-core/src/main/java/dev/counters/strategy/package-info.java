/**
 * The strategies: each one turns increments into store writes in its own way, trading exactness, freshness and
 * durability for throughput. {@link dev.counters.strategy.Strategies} creates them.
 */
@NullMarked
package dev.counters.strategy;

import org.jspecify.annotations.NullMarked;
