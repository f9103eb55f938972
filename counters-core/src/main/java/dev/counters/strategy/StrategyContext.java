package dev.counters.strategy;

import dev.counters.spi.CounterStore;
import java.time.Clock;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * What a strategy is built from: the store, and the clock and randomness it must use (injected so that tests are
 * deterministic).
 */
public record StrategyContext(CounterStore store, Clock clock, RandomGenerator random) {

    public StrategyContext {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(random, "random");
    }
}
