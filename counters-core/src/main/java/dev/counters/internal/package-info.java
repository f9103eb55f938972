/**
 * The library's internals: public only because other packages of {@code counters-core} and the library's own
 * modules use them. Not an API: anything here may change in any release. The strategies' contract
 * ({@link dev.counters.internal.CounterStrategy}, {@link dev.counters.internal.StrategyContext}) lives here too, for
 * contributors adding a strategy.
 */
@NullMarked
package dev.counters.internal;

import org.jspecify.annotations.NullMarked;
