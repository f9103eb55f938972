package dev.counters.internal.service;

import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.SelfCounting;
import dev.counters.strategy.StrategySettings;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A configuration rule's strategy, with the settings it was built from, and the increments it accepted, unless the
 * strategy counts them itself.
 */
public record Route(
        String rule,
        StrategySettings settings,
        CounterStrategy strategy,
        @Nullable LongAdder counted) {

    public Route(String rule, StrategySettings settings, CounterStrategy strategy) {
        this(rule, settings, strategy, strategy instanceof SelfCounting ? null : new LongAdder());
    }

    /** The strategy's name in configuration. */
    public String strategyName() {
        return settings.name();
    }

    void count() {
        if (counted != null) {
            counted.increment();
        }
    }

    long increments() {
        return counted != null ? counted.sum() : ((SelfCounting) strategy).acceptedIncrements();
    }
}
