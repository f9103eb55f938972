package dev.counters.memory;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.spi.CounterStore;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CounterStore} in this JVM's memory. Every operation on one counter is atomic; nothing survives the JVM.
 * It passes the same contract tests as the database stores.
 */
public final class InMemoryCounterStore implements CounterStore {

    // Each counter's cells are an immutable map replaced atomically, so reads need no lock.
    private final ConcurrentHashMap<CounterName, Map<String, Long>> counters = new ConcurrentHashMap<>();

    @Override
    public void add(CounterName counter, String cell, long delta) {
        counters.compute(counter, (name, cells) -> {
            Map<String, Long> next = cells == null ? new HashMap<>() : new HashMap<>(cells);
            long current = next.getOrDefault(cell, 0L);
            long updated = current + delta;
            if (((current ^ updated) & (delta ^ updated)) < 0) {
                throw new CounterOverflowException(counter, delta);
            }
            next.put(cell, updated);
            return Map.copyOf(next);
        });
    }

    @Override
    public long addAndGet(CounterName counter, String cell, long delta) {
        add(counter, cell, delta);
        // Another add may land between the two steps; the result still includes this delta, as documented.
        return get(counter);
    }

    @Override
    public long get(CounterName counter) {
        Map<String, Long> cells = counters.get(counter);
        return cells == null ? 0 : sum(cells);
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        Map<CounterName, Long> values = new LinkedHashMap<>();
        for (CounterName name : names) {
            Map<String, Long> cells = counters.get(name);
            if (cells != null) {
                values.put(name, sum(cells));
            }
        }
        return values;
    }

    @Override
    public boolean delete(CounterName counter) {
        return counters.remove(counter) != null;
    }

    private static long sum(Map<String, Long> cells) {
        long total = 0;
        for (long value : cells.values()) {
            total = Math.addExact(total, value);
        }
        return total;
    }
}
