package dev.counters.strategy;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The reads shared by the strategies whose counter is the sum of its cells in the store (atomic, optimistic,
 * sharded, node): they differ only in which cells they write.
 */
abstract class CellStrategy implements CounterStrategy {

    final CounterStore store;

    CellStrategy(CounterStore store) {
        this.store = store;
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
    public Map<String, Long> cells(CounterName name) {
        return store.cells(name);
    }

    @Override
    public void delete(CounterName name) {
        store.delete(name);
    }
}
