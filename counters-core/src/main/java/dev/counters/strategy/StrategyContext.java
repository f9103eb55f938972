package dev.counters.strategy;

import dev.counters.spi.CounterStore;
import java.time.Clock;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * What a strategy is built from: the store, the clock and randomness it must use (injected so that tests are
 * deterministic), and an id unique to the service instance that owns it (the owner of its leases).
 */
public record StrategyContext(CounterStore store, Clock clock, RandomGenerator random, String instanceId) {

    public StrategyContext {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(instanceId, "instanceId");
    }
}
