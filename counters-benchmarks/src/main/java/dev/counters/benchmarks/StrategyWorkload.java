package dev.counters.benchmarks;

import dev.counters.CounterService;
import dev.counters.IdempotencyKey;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.strategy.StrategySettings;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

/**
 * A strategy of this library on a {@link JooqCounterStore} with tables of its own: one service, or several on the
 * same tables, each with a pool of its own, as several application instances would be (node: one node id each).
 * The callers are shared out among the instances evenly.
 */
final class StrategyWorkload implements Workload {

    private final JooqCounterStore store;
    private final StrategySettings strategy;
    private final CounterService[] instances;
    private final String[] names;
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

    private final AtomicInteger nextCaller = new AtomicInteger();
    private final ThreadLocal<CounterService> instance;

    private StrategyWorkload(Setup setup, StrategySettings strategy, int instances, Mode mode) {
        String prefix = FreshTables.name("b") + "_";
        this.store = FreshTables.store(setup.dataSource(), prefix);
        this.strategy = strategy;
        this.instances = new CounterService[instances];
        this.instances[0] =
                CounterService.builder(store).defaultStrategy(strategy).build();
        int poolSize = Math.ceilDiv(setup.connections(), instances) + 2;
        for (int i = 1; i < instances; i++) {
            this.instances[i] = CounterService.builder(
                            FreshTables.store(setup.pools().apply(poolSize), prefix))
                    .defaultStrategy(strategy)
                    .build();
        }
        this.instance =
                ThreadLocal.withInitial(() -> this.instances[nextCaller.getAndIncrement() % this.instances.length]);
        this.names = IntStream.range(0, setup.counters())
                .mapToObj(i -> "bench.c" + i)
                .toArray(String[]::new);
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
        CounterService counters = instance.get();
        switch (mode) {
            case PLAIN -> counters.increment(names[counter]);
            case DURABLE -> counters.incrementDurably(names[counter], 1).join();
            case KEYED ->
                counters.increment(
                        names[counter],
                        1,
                        IdempotencyKey.of(keyPrefix.get() + keySequence.get()[0]++));
        }
    }

    @Override
    public void close() {
        Arrays.stream(instances).forEach(CounterService::close);
    }

    @Override
    public long[] totals() {
        // A new service, as a restarted application would read them (node: another node id; monotonic: its max).
        try (CounterService reader =
                CounterService.builder(store).defaultStrategy(strategy).build()) {
            Map<String, Long> values = reader.get(List.of(names));
            return Arrays.stream(names).mapToLong(values::get).toArray();
        }
    }
}
