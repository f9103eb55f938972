package dev.counters.strategy;

/**
 * Creates a strategy once its context is known. {@link Strategies} has one for each built-in strategy; an
 * application can supply its own.
 */
@FunctionalInterface
public interface StrategyFactory {

    CounterStrategy create(StrategyContext context);
}
