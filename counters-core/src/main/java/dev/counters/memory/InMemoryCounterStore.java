package dev.counters.memory;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.sequence.Reservation;
import dev.counters.spi.CounterStore;
import dev.counters.spi.CounterStore.VersionedValue;
import dev.counters.spi.DeltaLog;
import dev.counters.spi.IdempotencyKeys;
import dev.counters.spi.IdempotentBatches;
import dev.counters.spi.IdleCounters;
import dev.counters.spi.Leases;
import dev.counters.spi.Maxima;
import dev.counters.spi.Sequences;
import dev.counters.spi.ShardCounts;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
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
public final class InMemoryCounterStore
        implements CounterStore,
                Leases,
                IdempotentBatches,
                IdempotencyKeys,
                IdleCounters,
                DeltaLog,
                ShardCounts,
                Maxima,
                Sequences {

    // Each counter's cells are an immutable map replaced atomically, so reads need no lock.
    private final ConcurrentHashMap<CounterName, Map<String, VersionedValue>> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, Integer> shardCounts = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Lease> leases = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, Instant> batchKeys = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, RecordedKey> keys = new ConcurrentHashMap<>();
    /** The undo journal of the keyed write under way on this thread, if any. */
    @SuppressWarnings("ThreadLocalUsage") // one journal per store: tests run several stores on one thread
    private final ThreadLocal<@Nullable List<Runnable>> undo = new ThreadLocal<>();

    private final ConcurrentHashMap<CounterName, ConcurrentHashMap<String, Delta>> deltas = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, Map<Integer, Long>> maxShards = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, Long> sequences = new ConcurrentHashMap<>();

    /** An empty store. */
    public InMemoryCounterStore() {}

    private record Delta(long delta, Instant appendedAt, boolean folded) {}

    private record Lease(String owner, Instant expiresAt) {}

    private record RecordedKey(CounterName counter, long delta, OptionalLong value, Instant appliedAt) {}

    @Override
    public void add(CounterName counter, String cell, long delta) {
        addToCell(counter, cell, delta);
        journal(() -> addToCell(counter, cell, -delta));
    }

    /**
     * Records how to undo a write when a keyed write on this thread is under way ({@link #applyOnce}), which undoes
     * it if it fails: what a database's rollback would do. An inverse add, not a restored snapshot, so that the
     * concurrent writes of other threads stay.
     */
    private void journal(Runnable undo) {
        List<Runnable> journal = this.undo.get();
        if (journal != null) {
            journal.add(undo);
        }
    }

    /** The add, and the counter's cells right after it. */
    private Map<String, VersionedValue> addToCell(CounterName counter, String cell, long delta) {
        return counters.compute(counter, (name, cells) -> {
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

    /** Synchronized with folds, so that the total counts a folded delta once: in its delta or in the cell. */
    @Override
    public synchronized long addAndGet(CounterName counter, String cell, long delta) {
        Map<String, VersionedValue> cells = addToCell(counter, cell, delta);
        journal(() -> addToCell(counter, cell, -delta));
        // The cells as this add left them: the total includes it and no later add, as in a database transaction.
        return total(counter, cells, true);
    }

    @Override
    public long get(CounterName counter) {
        return total(counter, true);
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        return totals(names, true);
    }

    @Override
    public Map<CounterName, Long> getFolded(Collection<CounterName> names) {
        return totals(names, false);
    }

    private Map<CounterName, Long> totals(Collection<CounterName> names, boolean withDeltas) {
        Map<CounterName, Long> values = new LinkedHashMap<>();
        for (CounterName name : names) {
            if (counters.containsKey(name) || (withDeltas && hasUnfolded(name))) {
                values.put(name, total(name, withDeltas));
            }
        }
        return values;
    }

    private boolean hasUnfolded(CounterName counter) {
        return deltas.getOrDefault(counter, new ConcurrentHashMap<>()).values().stream()
                .anyMatch(d -> !d.folded());
    }

    @Override
    public boolean delete(CounterName counter) {
        shardCounts.remove(counter);
        maxShards.remove(counter);
        boolean hadDeltas = deltas.remove(counter) != null;
        return counters.remove(counter) != null || hadDeltas;
    }

    @Override
    public List<CounterName> counterNames(String prefix, @Nullable CounterName after, int limit) {
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
        return (after == null ? names : names.tailSet(after, false))
                .stream()
                        .filter(name -> name.value().startsWith(prefix))
                        .limit(limit)
                        .toList();
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
        if (written[0]) {
            long change = newValue - (expected == null ? 0 : expected.value());
            journal(() -> addToCell(counter, cell, -change));
        }
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
    public synchronized AppliedBatch applyBatch(
            String key, String cell, Map<CounterName, Long> batch, Map<String, KeyedDelta> keyed, Instant now) {
        if (batchKeys.containsKey(key)) {
            return AppliedBatch.NOT_APPLIED;
        }
        Map<CounterName, Long> sums = new LinkedHashMap<>(batch);
        Map<String, KeyedDelta> repeated = new HashMap<>();
        keyed.forEach((idempotencyKey, increment) -> {
            RecordedKey recorded = keys.get(idempotencyKey);
            if (recorded != null) {
                repeated.put(idempotencyKey, new KeyedDelta(recorded.counter(), recorded.delta()));
                sums.merge(increment.counter(), -increment.delta(), Long::sum);
            }
        });
        Map<CounterName, Long> applied = new LinkedHashMap<>();
        try {
            sums.forEach((counter, delta) -> {
                add(counter, cell, delta);
                applied.put(counter, delta);
            });
        } catch (CounterOverflowException e) {
            applied.forEach((counter, delta) -> add(counter, cell, -delta)); // all or nothing
            throw e;
        }
        keyed.forEach((idempotencyKey, increment) -> keys.putIfAbsent(
                idempotencyKey, new RecordedKey(increment.counter(), increment.delta(), OptionalLong.empty(), now)));
        batchKeys.put(key, now);
        return new AppliedBatch(true, repeated);
    }

    @Override
    public Map<CounterName, Map<String, Long>> cellVersions(Collection<CounterName> names) {
        Map<CounterName, Map<String, Long>> versions = new LinkedHashMap<>();
        for (CounterName name : names) {
            Map<String, VersionedValue> cells = counters.get(name);
            if (cells != null && !cells.isEmpty()) {
                Map<String, Long> byCell = new HashMap<>();
                cells.forEach((cell, value) -> byCell.put(cell, value.version()));
                versions.put(name, byCell);
            }
        }
        return versions;
    }

    @Override
    public boolean deleteIfUnchanged(CounterName counter, Map<String, Long> cellVersions) {
        boolean[] deleted = {false};
        counters.computeIfPresent(counter, (name, cells) -> {
            boolean unchanged = cells.size() == cellVersions.size()
                    && cells.entrySet().stream()
                            .allMatch(cell ->
                                    Long.valueOf(cell.getValue().version()).equals(cellVersions.get(cell.getKey())));
            boolean unfolded = deltas.getOrDefault(counter, new ConcurrentHashMap<>()).values().stream()
                    .anyMatch(delta -> !delta.folded());
            deleted[0] = unchanged && !unfolded;
            return deleted[0] ? null : cells;
        });
        return deleted[0];
    }

    @Override
    public synchronized KeyedIncrement applyOnce(
            String key, CounterName counter, long delta, Instant now, KeyedWrite write) {
        RecordedKey recorded = keys.get(key);
        if (recorded != null) {
            return new KeyedIncrement(recorded.counter(), recorded.delta(), recorded.value(), false);
        }
        List<Runnable> journal = new ArrayList<>();
        undo.set(journal);
        OptionalLong value;
        try {
            value = write.apply(this);
        } catch (RuntimeException e) {
            undo.remove();
            Collections.reverse(journal);
            journal.forEach(Runnable::run); // records no key, and undoes what the write did, last first
            throw e;
        } finally {
            undo.remove();
        }
        keys.put(key, new RecordedKey(counter, delta, value, now));
        return new KeyedIncrement(counter, delta, value, true);
    }

    @Override
    public synchronized int pruneKeys(Instant appliedBefore, int limit) {
        List<String> old = keys.entrySet().stream()
                .filter(entry -> entry.getValue().appliedAt().isBefore(appliedBefore))
                .sorted(Map.Entry.comparingByValue(Comparator.comparing(RecordedKey::appliedAt)))
                .limit(limit)
                .map(Map.Entry::getKey)
                .toList();
        old.forEach(keys::remove);
        return old.size();
    }

    @Override
    public int pruneBatchKeys(Instant appliedBefore) {
        int before = batchKeys.size();
        batchKeys.values().removeIf(appliedAt -> appliedAt.isBefore(appliedBefore));
        return before - batchKeys.size();
    }

    @Override
    public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
        ConcurrentHashMap<String, Delta> log = deltas.computeIfAbsent(counter, name -> new ConcurrentHashMap<>());
        Delta stored = log.putIfAbsent(deltaId, new Delta(delta, now, false));
        if (stored == null) {
            journal(() -> log.remove(deltaId));
        }
        return stored == null ? OptionalLong.empty() : OptionalLong.of(stored.delta());
    }

    @Override
    public Map<String, Long> unfoldedDeltas(CounterName counter, int limit) {
        Map<String, Long> unfolded = new HashMap<>();
        for (Map.Entry<String, Delta> entry :
                deltas.getOrDefault(counter, new ConcurrentHashMap<>()).entrySet()) {
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
    public synchronized boolean foldDeltas(
            CounterName counter, String cell, Collection<String> deltaIds, long sum, Instant purgeBefore) {
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
    public List<CounterName> maximumNames(@Nullable CounterName after, int limit) {
        TreeSet<CounterName> names = new TreeSet<>(maxShards.keySet());
        return (after == null ? names : names.tailSet(after, false))
                .stream().limit(limit).toList();
    }

    @Override
    public OptionalLong maxOfShards(CounterName counter) {
        return maxShards.getOrDefault(counter, Map.of()).values().stream()
                .mapToLong(Long::longValue)
                .max();
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
        Lease result = leases.compute(
                key,
                (k, lease) -> lease == null
                                || lease.owner().equals(owner)
                                || !lease.expiresAt().isAfter(now)
                        ? new Lease(owner, expiresAt)
                        : lease);
        return result.owner().equals(owner) && result.expiresAt().equals(expiresAt);
    }

    @Override
    public void releaseLease(String key, String owner) {
        leases.computeIfPresent(key, (k, lease) -> lease.owner().equals(owner) ? null : lease);
    }

    /** Synchronized with folds, which move a value from deltas to a cell in two steps. */
    private synchronized long total(CounterName counter, boolean withDeltas) {
        return total(counter, counters.getOrDefault(counter, Map.of()), withDeltas);
    }

    /** The sum of {@code cells} and, if asked, of the counter's unfolded deltas; called holding the store's lock. */
    private long total(CounterName counter, Map<String, VersionedValue> cells, boolean withDeltas) {
        long total = 0;
        try {
            for (VersionedValue cell : cells.values()) {
                total = Math.addExact(total, cell.value());
            }
            if (withDeltas) {
                for (Delta delta :
                        deltas.getOrDefault(counter, new ConcurrentHashMap<>()).values()) {
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
