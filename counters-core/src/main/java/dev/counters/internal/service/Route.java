package dev.counters.internal.service;

import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.SelfCounting;
import dev.counters.strategy.StrategySettings;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A configuration rule's strategy, with the settings it was built from, the increments it accepted, unless the
 * strategy counts them itself, and its membership counters' changes by outcome.
 */
public record Route(
        String rule,
        StrategySettings settings,
        CounterStrategy strategy,
        @Nullable LongAdder counted,
        MemberChanges memberChanges) {

    public Route(String rule, StrategySettings settings, CounterStrategy strategy) {
        this(rule, settings, strategy, strategy instanceof SelfCounting ? null : new LongAdder(), new MemberChanges());
    }

    /** Adds and removes of members, by outcome: for metrics. */
    static final class MemberChanges {
        final LongAdder added = new LongAdder();
        final LongAdder removed = new LongAdder();
        final LongAdder unchanged = new LongAdder();

        void count(boolean add, boolean changed) {
            (!changed ? unchanged : add ? added : removed).increment();
        }
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
