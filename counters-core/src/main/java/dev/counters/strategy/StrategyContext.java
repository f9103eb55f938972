package dev.counters.strategy;

import dev.counters.spi.CounterStore;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.random.RandomGenerator;

/**
 * What a strategy is built from: the store, the clock and randomness it must use (injected so that tests are
 * deterministic), an id unique to the service instance that owns it (the owner of its leases), and the factory of
 * its background threads (flusher, recounter, lease renewer).
 */
public record StrategyContext(CounterStore store, Clock clock, RandomGenerator random, String instanceId,
        ThreadFactory threadFactory) {

    public StrategyContext {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(threadFactory, "threadFactory");
    }

    /** A background thread from the factory, named for what it does, not yet started. */
    Thread newThread(String purpose, Runnable task) {
        Thread thread = threadFactory.newThread(task);
        thread.setName("counters-" + purpose + "-" + instanceId.substring(0, Math.min(8, instanceId.length())));
        return thread;
    }
}
