package dev.counters.benchmarks;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.strategy.StrategyFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import javax.sql.DataSource;

/** A strategy of this library on a {@link JooqCounterStore} with tables of its own. */
final class StrategyWorkload implements Workload {

    private final JooqCounterStore store;
    private final StrategyFactory strategy;
    private final CounterService counters;
    private final String[] names;
    private final boolean durable;

    private StrategyWorkload(DataSource dataSource, StrategyFactory strategy, int counters, boolean durable) {
        this.store = FreshTables.store(dataSource);
        this.strategy = strategy;
        this.counters = CounterService.builder(store).defaultStrategy(strategy).build();
        this.names = IntStream.range(0, counters).mapToObj(i -> "bench.c" + i).toArray(String[]::new);
        this.durable = durable;
    }

    /** Increments that return at once (buffered: before they are durable). */
    static Opener of(StrategyFactory strategy) {
        return (dataSource, database, counters) -> new StrategyWorkload(dataSource, strategy, counters, false);
    }

    /** Each increment waits until it is durable ({@code incrementDurably(...).join()}). */
    static Opener durable(StrategyFactory strategy) {
        return (dataSource, database, counters) -> new StrategyWorkload(dataSource, strategy, counters, true);
    }

    @Override
    public void increment(int counter) {
        if (durable) {
            counters.incrementDurably(names[counter], 1).join();
        } else {
            counters.increment(names[counter]);
        }
    }

    @Override
    public void close() {
        counters.close();
    }

    @Override
    public long[] totals() {
        // A new service, as a restarted application would read them (node: another node id; monotonic: its max).
        try (CounterService reader = CounterService.builder(store).defaultStrategy(strategy).build()) {
            Map<String, Long> values = reader.get(List.of(names));
            return Arrays.stream(names).mapToLong(values::get).toArray();
        }
    }
}
