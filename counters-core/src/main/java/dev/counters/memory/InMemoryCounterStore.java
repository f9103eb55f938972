package dev.counters.memory;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.spi.CounterStore;
import dev.counters.spi.VersionedValue;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link CounterStore} in this JVM's memory. Every operation on one counter is atomic; nothing survives the JVM.
 * It passes the same contract tests as the database stores.
 */
public final class InMemoryCounterStore implements CounterStore {

    // Each counter's cells are an immutable map replaced atomically, so reads need no lock.
    private final ConcurrentHashMap<CounterName, Map<String, VersionedValue>> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, Integer> shardCounts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Lease> leases = new ConcurrentHashMap<>();

    private record Lease(String owner, Instant expiresAt) {
    }

    @Override
    public void add(CounterName counter, String cell, long delta) {
        counters.compute(counter, (name, cells) -> {
            Map<String, VersionedValue> next = cells == null ? new HashMap<>() : new HashMap<>(cells);
            VersionedValue current = next.get(cell);
            long value = current == null ? 0 : current.value();
            long updated = value + delta;
            if (((value ^ updated) & (delta ^ updated)) < 0) {
                throw new CounterOverflowException(counter, delta);
            }
            next.put(cell, new VersionedValue(updated, current == null ? 1 : current.version() + 1));
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
        Map<String, VersionedValue> cells = counters.get(counter);
        return cells == null ? 0 : sum(counter, cells);
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        Map<CounterName, Long> values = new LinkedHashMap<>();
        for (CounterName name : names) {
            Map<String, VersionedValue> cells = counters.get(name);
            if (cells != null) {
                values.put(name, sum(name, cells));
            }
        }
        return values;
    }

    @Override
    public boolean delete(CounterName counter) {
        shardCounts.remove(counter);
        return counters.remove(counter) != null;
    }

    @Override
    public Map<String, Long> cells(CounterName counter) {
        Map<String, Long> values = new HashMap<>();
        counters.getOrDefault(counter, Map.of()).forEach((cell, value) -> values.put(cell, value.value()));
        return values;
    }

    @Override
    public Optional<VersionedValue> read(CounterName counter, String cell) {
        return Optional.ofNullable(counters.getOrDefault(counter, Map.of()).get(cell));
    }

    @Override
    public boolean compareAndSet(CounterName counter, String cell, long expectedVersion, long newValue) {
        boolean[] written = {false};
        counters.compute(counter, (name, cells) -> {
            Map<String, VersionedValue> current = cells == null ? Map.of() : cells;
            VersionedValue existing = current.get(cell);
            long version = existing == null ? 0 : existing.version();
            if (version != expectedVersion) {
                return cells;
            }
            Map<String, VersionedValue> next = new HashMap<>(current);
            next.put(cell, new VersionedValue(newValue, version + 1));
            written[0] = true;
            return Map.copyOf(next);
        });
        return written[0];
    }

    @Override
    public OptionalInt shardCount(CounterName counter) {
        Integer shards = shardCounts.get(counter);
        return shards == null ? OptionalInt.empty() : OptionalInt.of(shards);
    }

    @Override
    public int growShardCount(CounterName counter, int shards) {
        return shardCounts.merge(counter, shards, Math::max);
    }

    @Override
    public boolean tryLease(String key, String owner, Instant expiresAt, Instant now) {
        Lease result = leases.compute(key, (k, lease) ->
                lease == null || lease.owner().equals(owner) || !lease.expiresAt().isAfter(now)
                        ? new Lease(owner, expiresAt) : lease);
        return result.owner().equals(owner) && result.expiresAt().equals(expiresAt);
    }

    @Override
    public void releaseLease(String key, String owner) {
        leases.computeIfPresent(key, (k, lease) -> lease.owner().equals(owner) ? null : lease);
    }

    private static long sum(CounterName counter, Map<String, VersionedValue> cells) {
        long total = 0;
        for (VersionedValue cell : cells.values()) {
            try {
                total = Math.addExact(total, cell.value());
            } catch (ArithmeticException e) {
                throw new ArithmeticException("The total of counter '" + counter + "' is outside the 64-bit range");
            }
        }
        return total;
    }
}
