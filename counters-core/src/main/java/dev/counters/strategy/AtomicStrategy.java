package dev.counters.strategy;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One cell per counter, one atomic upsert per increment (seed 004, "single-row upsert"). The database's row lock
 * makes it exact; the same lock is why it does not scale on one hot counter.
 */
final class AtomicStrategy implements CounterStrategy {

    static final String CELL = "main";

    private final CounterStore store;

    AtomicStrategy(CounterStore store) {
        this.store = store;
    }

    @Override
    public String type() {
        return "atomic";
    }

    @Override
    public void increment(CounterName name, long delta) {
        store.add(name, CELL, delta);
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        return store.addAndGet(name, CELL, delta);
    }

    @Override
    public long get(CounterName name) {
        return store.get(name);
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        Map<CounterName, Long> stored = store.getAll(names);
        Map<CounterName, Long> values = new LinkedHashMap<>();
        for (CounterName name : names) {
            values.put(name, stored.getOrDefault(name, 0L));
        }
        return values;
    }

    @Override
    public void delete(CounterName name) {
        store.delete(name);
    }
}
