package dev.counters.internal.service;

import dev.counters.internal.strategy.CounterStrategy;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/** A configuration rule's strategy, and the increments it accepted, unless the strategy counts them itself. */
public record Route(String rule, CounterStrategy strategy, @Nullable LongAdder counted) {

    public Route(String rule, CounterStrategy strategy) {
        this(rule, strategy, strategy.acceptedIncrements().isPresent() ? null : new LongAdder());
    }

    void count() {
        if (counted != null) {
            counted.increment();
        }
    }

    long increments() {
        return counted != null ? counted.sum() : strategy.acceptedIncrements().orElseThrow();
    }
}
