package dev.counters.benchmarks;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.strategy.StrategySettings;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import javax.sql.DataSource;

/**
 * Services of this library on one set of fresh tables, as application instances run them: one, or several each with
 * a pool of its own (node, bounded: a node id each, generated as each starts). The callers are shared out among the
 * instances evenly; the counters are named {@code bench.c0}, {@code bench.c1}, …
 */
final class ServiceInstances implements AutoCloseable {

    private final JooqCounterStore store;
    private final StrategySettings strategy;
    private final CounterService[] services;
    private final String[] names;
    private final AtomicInteger nextCaller = new AtomicInteger();
    private final ThreadLocal<CounterService> callers;

    ServiceInstances(Workload.Setup setup, StrategySettings strategy, int instances) {
        String prefix = FreshTables.name("b") + "_";
        List<DataSource> pools = setup.instancePools(instances);
        this.store = FreshTables.store(pools.getFirst(), prefix);
        this.strategy = strategy;
        this.services = new CounterService[instances];
        for (int i = 0; i < instances; i++) {
            services[i] = service(i == 0 ? store : FreshTables.store(pools.get(i), prefix));
        }
        this.callers = ThreadLocal.withInitial(() -> services[nextCaller.getAndIncrement() % services.length]);
        this.names = IntStream.range(0, setup.counters())
                .mapToObj(i -> "bench.c" + i)
                .toArray(String[]::new);
    }

    private CounterService service(JooqCounterStore on) {
        return CounterService.builder(on).defaultStrategy(strategy).build();
    }

    /** The calling thread's instance. */
    CounterService caller() {
        return callers.get();
    }

    /** The first instance. */
    CounterService first() {
        return services[0];
    }

    /** The flushes every instance's buffered strategies made so far. */
    Flushes flushes() {
        return Flushes.of(services);
    }

    String name(int counter) {
        return names[counter];
    }

    List<String> names() {
        return List.of(names);
    }

    /**
     * A new service on the tables, as a restarted application would read them (node and bounded: another node id;
     * monotonic: its max). The caller closes it.
     */
    CounterService reader() {
        return service(store);
    }

    /** Every counter's value, read by a {@link #reader()}. */
    long[] values() {
        try (CounterService reader = reader()) {
            return reader.get(names()).values().stream()
                    .mapToLong(Long::longValue)
                    .toArray();
        }
    }

    @Override
    public void close() {
        Arrays.stream(services).forEach(CounterService::close);
    }
}
