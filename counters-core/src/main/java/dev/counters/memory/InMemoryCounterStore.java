package dev.counters.memory;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.spi.CounterStore.Reservation;
import dev.counters.spi.CounterStore.VersionedValue;
import dev.counters.spi.CounterStore;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} in this JVM's memory. Every operation on one counter is atomic; nothing survives the JVM.
 * It passes the same contract tests as the database stores.
 */
public final class InMemoryCounterStore implements CounterStore, CounterStore.Leases, CounterStore.IdempotentBatches,
        CounterStore.DeltaLog, CounterStore.Maxima, CounterStore.Sequences {

    // Each counter's cells are an immutable map replaced atomically, so reads need no lock.
    private final ConcurrentHashMap<CounterName, Map<String, VersionedValue>> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, Integer> shardCounts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Lease> leases = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Instant> batchKeys = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, ConcurrentHashMap<String, Delta>> deltas = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, Map<Integer, Long>> maxShards = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, Long> sequences = new ConcurrentHashMap<>();

    /** An empty store. */
    public InMemoryCounterStore() {
    }

    private record Delta(long delta, Instant appendedAt, boolean folded) {
    }

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
        return total(counter, false);
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        return totals(names, false);
    }

    @Override
    public Map<CounterName, Long> getWithDeltas(Collection<CounterName> names) {
        return totals(names, true);
    }

    private Map<CounterName, Long> totals(Collection<CounterName> names, boolean withDeltas) {
        Map<CounterName, Long> values = new LinkedHashMap<>();
        for (CounterName name : names) {
            if (counters.containsKey(name) || (withDeltas && deltas.containsKey(name))) {
                values.put(name, total(name, withDeltas));
            }
        }
        return values;
    }

    @Override
    public boolean delete(CounterName counter) {
        shardCounts.remove(counter);
        maxShards.remove(counter);
        boolean hadDeltas = deltas.remove(counter) != null;
        return counters.remove(counter) != null || hadDeltas;
    }

    @Override
    public List<CounterName> counterNames(@Nullable CounterName after, int limit) {
        TreeSet<CounterName> names = new TreeSet<>();
        counters.forEach((name, cells) -> {
            if (!cells.isEmpty()) {
                names.add(name);
            }
        });
        deltas.forEach((name, log) -> {
            if (!log.isEmpty()) {
                names.add(name);
            }
        });
        names.addAll(maxShards.keySet());
        return (after == null ? names : names.tailSet(after, false)).stream().limit(limit).toList();
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
    public boolean compareAndSet(CounterName counter, String cell, @Nullable VersionedValue expected, long newValue) {
        boolean[] written = {false};
        counters.compute(counter, (name, cells) -> {
            Map<String, VersionedValue> current = cells == null ? Map.of() : cells;
            VersionedValue existing = current.get(cell);
            if (!Objects.equals(existing, expected)) {
                return cells;
            }
            Map<String, VersionedValue> next = new HashMap<>(current);
            next.put(cell, new VersionedValue(newValue, existing == null ? 1 : existing.version() + 1));
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
    public synchronized boolean applyBatch(String key, String cell, Map<CounterName, Long> batch, Instant now) {
        if (batchKeys.containsKey(key)) {
            return false;
        }
        Map<CounterName, Long> applied = new LinkedHashMap<>();
        try {
            batch.forEach((counter, delta) -> {
                add(counter, cell, delta);
                applied.put(counter, delta);
            });
        } catch (CounterOverflowException e) {
            applied.forEach((counter, delta) -> add(counter, cell, -delta)); // all or nothing
            throw e;
        }
        batchKeys.put(key, now);
        return true;
    }

    @Override
    public int pruneBatchKeys(Instant appliedBefore) {
        int before = batchKeys.size();
        batchKeys.values().removeIf(appliedAt -> appliedAt.isBefore(appliedBefore));
        return before - batchKeys.size();
    }

    @Override
    public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
        Delta stored = deltas.computeIfAbsent(counter, name -> new ConcurrentHashMap<>())
                .putIfAbsent(deltaId, new Delta(delta, now, false));
        return stored == null ? OptionalLong.empty() : OptionalLong.of(stored.delta());
    }

    @Override
    public Map<String, Long> unfoldedDeltas(CounterName counter, int limit) {
        Map<String, Long> unfolded = new HashMap<>();
        for (Map.Entry<String, Delta> entry : deltas.getOrDefault(counter, new ConcurrentHashMap<>()).entrySet()) {
            if (unfolded.size() >= limit) {
                break;
            }
            if (!entry.getValue().folded()) {
                unfolded.put(entry.getKey(), entry.getValue().delta());
            }
        }
        return unfolded;
    }

    @Override
    public synchronized boolean foldDeltas(CounterName counter, String cell, Collection<String> deltaIds, long sum,
            Instant purgeBefore) {
        ConcurrentHashMap<String, Delta> log = deltas.getOrDefault(counter, new ConcurrentHashMap<>());
        for (String id : deltaIds) {
            Delta delta = log.get(id);
            if (delta == null || delta.folded()) {
                return false;
            }
        }
        if (sum != 0) {
            add(counter, cell, sum); // first: an overflow leaves every delta unfolded
        }
        for (String id : deltaIds) {
            log.computeIfPresent(id, (key, delta) -> new Delta(delta.delta(), delta.appendedAt(), true));
        }
        log.values().removeIf(delta -> delta.folded() && delta.appendedAt().isBefore(purgeBefore));
        return true;
    }

    @Override
    public void raiseShard(CounterName counter, int shard, long value) {
        maxShards.compute(counter, (name, shards) -> {
            Map<Integer, Long> next = shards == null ? new HashMap<>() : new HashMap<>(shards);
            next.merge(shard, value, Math::max);
            return Map.copyOf(next);
        });
    }

    @Override
    public OptionalLong maxOfShards(CounterName counter) {
        return maxShards.getOrDefault(counter, Map.of()).values().stream().mapToLong(Long::longValue).max();
    }

    @Override
    public Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue) {
        Reservation[] reserved = new Reservation[1];
        sequences.compute(sequence, (name, next) -> {
            reserved[0] = Reservation.starting(sequence, next == null ? start : next, count, increment, maxValue);
            return reserved[0].next();
        });
        return reserved[0];
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

    /** Synchronized with folds, which move a value from deltas to a cell in two steps. */
    private synchronized long total(CounterName counter, boolean withDeltas) {
        long total = 0;
        try {
            for (VersionedValue cell : counters.getOrDefault(counter, Map.of()).values()) {
                total = Math.addExact(total, cell.value());
            }
            if (withDeltas) {
                for (Delta delta : deltas.getOrDefault(counter, new ConcurrentHashMap<>()).values()) {
                    if (!delta.folded()) {
                        total = Math.addExact(total, delta.delta());
                    }
                }
            }
        } catch (ArithmeticException e) {
            throw CounterOverflowException.ofTotal(counter);
        }
        return total;
    }
}
