package dev.counters.internal.service;

import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.SelfCounting;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/** A configuration rule's strategy, and the increments it accepted, unless the strategy counts them itself. */
public record Route(String rule, CounterStrategy strategy, @Nullable LongAdder counted) {

    public Route(String rule, CounterStrategy strategy) {
        this(rule, strategy, strategy instanceof SelfCounting ? null : new LongAdder());
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
