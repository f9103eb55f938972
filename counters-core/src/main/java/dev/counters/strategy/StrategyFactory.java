package dev.counters.strategy;

import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.StrategyContext;

/**
 * Creates a strategy once its context is known. {@link Strategies} has one for each built-in strategy. Its types
 * live in {@code dev.counters.internal}: adding a strategy is a contribution to the library (see
 * {@code docs/architecture.md}), not an extension point with compatibility promises.
 */
@FunctionalInterface
@SuppressWarnings("exports") // its types are internal on purpose: applications pass factories, they do not write them
public interface StrategyFactory {

    CounterStrategy create(StrategyContext context);
}
