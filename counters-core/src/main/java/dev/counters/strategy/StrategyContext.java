package dev.counters.strategy;

import dev.counters.spi.CounterStore;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.random.RandomGenerator;

/**
 * What a strategy is built from: the store, the clock and the randomness for spreading load it must use (injected
 * so that tests are deterministic), the source of the ids it writes (unique to the service instance that owns it,
 * never drawn from {@code random}), and the factory of its background threads (flusher, recounter, lease renewer).
 */
public record StrategyContext(CounterStore store, Clock clock, RandomGenerator random, UniqueIds ids,
        ThreadFactory threadFactory) {

    public StrategyContext {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(threadFactory, "threadFactory");
    }

    /** The id of the service instance: the owner of its leases. */
    public String instanceId() {
        return ids.instanceId();
    }

    /** A background thread from the factory, named for what it does, not yet started. */
    Thread newThread(String purpose, Runnable task) {
        Thread thread = threadFactory.newThread(task);
        thread.setName("counters-" + purpose + "-" + instanceId().substring(0, 8));
        return thread;
    }
}
