package dev.counters.benchmarks;

import dev.counters.CounterService;
import dev.counters.IdempotencyKey;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.strategy.StrategySettings;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A strategy of this library on a {@link JooqCounterStore} with tables of its own: one service, or several on the
 * same tables, each with a pool of its own, as several application instances would be (node: one node id each).
 * The callers are shared out among the instances evenly.
 */
final class StrategyWorkload implements Workload {

    private final ServiceInstances instances;
    private final Mode mode;
    /** Each caller's keys: its number and a sequence, unique within the run's fresh tables. */
    private final ThreadLocal<long[]> keySequence = ThreadLocal.withInitial(() -> new long[1]);

    private final AtomicInteger nextKeyPrefix = new AtomicInteger();
    private final ThreadLocal<String> keyPrefix =
            ThreadLocal.withInitial(() -> "k" + nextKeyPrefix.incrementAndGet() + "-");

    /** How each increment is made. */
    enum Mode {
        /** {@code increment}: returns at once (buffered: before it is durable). */
        PLAIN,
        /** {@code incrementDurably(...).join()}. */
        DURABLE,
        /** {@code increment} under a new idempotency key each. */
        KEYED
    }

    private StrategyWorkload(Setup setup, StrategySettings strategy, int instances, Mode mode) {
        this.instances = new ServiceInstances(setup, strategy, instances);
        this.mode = mode;
    }

    /** Increments that return at once (buffered: before they are durable). */
    static Opener of(StrategySettings strategy) {
        return setup -> new StrategyWorkload(setup, strategy, 1, Mode.PLAIN);
    }

    /** Each increment under an idempotency key of its own: what a key costs. */
    static Opener keyed(StrategySettings strategy) {
        return setup -> new StrategyWorkload(setup, strategy, 1, Mode.KEYED);
    }

    /** {@code instances} services on the same tables, each with its own pool (and node id). */
    static Opener instances(StrategySettings strategy, int instances) {
        return setup -> new StrategyWorkload(setup, strategy, instances, Mode.PLAIN);
    }

    /** {@code instances} services on the same tables, each increment waiting until it is durable. */
    static Opener durableInstances(StrategySettings strategy, int instances) {
        return setup -> new StrategyWorkload(setup, strategy, instances, Mode.DURABLE);
    }

    /** Each increment waits until it is durable ({@code incrementDurably(...).join()}). */
    static Opener durable(StrategySettings strategy) {
        return setup -> new StrategyWorkload(setup, strategy, 1, Mode.DURABLE);
    }

    @Override
    public void increment(int counter) {
        CounterService counters = instances.caller();
        String name = instances.name(counter);
        switch (mode) {
            case PLAIN -> counters.increment(name);
            case DURABLE -> counters.incrementDurably(name, 1).join();
            case KEYED ->
                counters.increment(
                        name, 1, IdempotencyKey.of(keyPrefix.get() + keySequence.get()[0]++));
        }
    }

    @Override
    public Flushes flushes() {
        return instances.flushes();
    }

    @Override
    public void close() {
        instances.close();
    }

    @Override
    public long[] totals() {
        return instances.values();
    }
}
