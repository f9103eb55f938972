package dev.counters.memory;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.sequence.Reservation;
import dev.counters.spi.CounterStore;
import dev.counters.spi.CounterStore.VersionedValue;
import dev.counters.spi.DeltaLog;
import dev.counters.spi.Escrow;
import dev.counters.spi.Holds;
import dev.counters.spi.IdempotencyKeys;
import dev.counters.spi.IdempotentBatches;
import dev.counters.spi.IdleCounters;
import dev.counters.spi.Leases;
import dev.counters.spi.Maxima;
import dev.counters.spi.Members;
import dev.counters.spi.RateLimits;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
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
                Sequences,
                Escrow,
                Holds,
                RateLimits,
                Members {

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
    /** Each membership counter's members, changed under the store's lock with its count. */
    private final ConcurrentHashMap<CounterName, ConcurrentSkipListSet<String>> members = new ConcurrentHashMap<>();

    // Bounded counters: each escrow cell's rooms beside its value in the cells map. Written only under the store's
    // lock, so that every escrow write sees and changes the value and the rooms of a cell together.
    private final ConcurrentHashMap<CounterName, Map<String, Rooms>> rooms = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<CounterName, Bounds> bounds = new ConcurrentHashMap<>();
    /** The bounded counters {@link #seal} sealed: no bind opens them again. */
    private final Set<CounterName> sealed = ConcurrentHashMap.newKeySet();

    private final ConcurrentSkipListSet<NodeAllowance> allowances = new ConcurrentSkipListSet<>(
            Comparator.comparing(NodeAllowance::nodeId).thenComparing(NodeAllowance::counter));
    private final ConcurrentHashMap<String, Operation> operations = new ConcurrentHashMap<>();
    /** GCRA: each key's theoretical arrival time, under the store's lock. */
    private final Map<RateKey, Long> tats = new HashMap<>();

    /** An empty store. */
    public InMemoryCounterStore() {}

    private record Delta(long delta, Instant appendedAt, boolean folded) {}

    private record RateKey(String limiter, String key) {}

    private record Lease(String owner, Instant expiresAt) {}

    private record RecordedKey(CounterName counter, long delta, OptionalLong value, Instant appliedAt) {}

    private record Rooms(@Nullable Long down, @Nullable Long up) {}

    private record Operation(
            CounterName counter,
            long delta,
            OperationState state,
            @Nullable Instant expiresAt,
            OptionalLong value,
            @Nullable Instant settledAt) {

        KeyedOperation toKeyed(String key, boolean appliedNow) {
            return new KeyedOperation(key, counter, delta, state, expiresAt, value, appliedNow);
        }
    }

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

    @Override
    public synchronized Map<CounterName, Long> getAllWithBatches(
            Collection<CounterName> names, Map<String, Map<CounterName, Long>> inFlight) {
        return IdempotentBatches.withUnrecorded(names, totals(names, true), batchKeys.keySet(), inFlight);
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
    public synchronized boolean delete(CounterName counter) {
        shardCounts.remove(counter);
        maxShards.remove(counter);
        forgetEscrow(counter);
        boolean hadMembers = members.remove(counter) != null;
        boolean hadDeltas = deltas.remove(counter) != null;
        return counters.remove(counter) != null || hadDeltas || hadMembers;
    }

    /** Removes the counter's bounds, rooms, operations and allowance registrations; called holding the lock. */
    private void forgetEscrow(CounterName counter) {
        bounds.remove(counter);
        sealed.remove(counter);
        rooms.remove(counter);
        operations.values().removeIf(operation -> operation.counter().equals(counter));
        allowances.removeIf(allowance -> allowance.counter().equals(counter));
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
    public synchronized boolean deleteIfUnchanged(CounterName counter, Map<String, Long> cellVersions) {
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
        if (deleted[0]) {
            forgetEscrow(counter);
        }
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

    // ---- escrow ----

    @Override
    public Optional<EscrowCell> bind(CounterName counter, Bounds wanted, long initial, String nodeCell, Instant now) {
        return bind(counter, wanted, initial, nodeCell, true);
    }

    @Override
    public Optional<EscrowCell> bindIfAbsent(
            CounterName counter, Bounds wanted, long initial, String nodeCell, Instant now) {
        return bind(counter, wanted, initial, nodeCell, false);
    }

    private synchronized Optional<EscrowCell> bind(
            CounterName counter, Bounds wanted, long initial, String nodeCell, boolean rebind) {
        Bounds stored = bounds.get(counter);
        if (stored == null) {
            Rooms pool = new Rooms(
                    wanted.min() == null ? null : subtract(counter, initial, wanted.min()),
                    wanted.max() == null ? null : subtract(counter, wanted.max(), initial));
            setCell(counter, POOL, initial);
            putRooms(counter, POOL, pool);
            bounds.put(counter, wanted);
        } else if (rebind && !sealed.contains(counter) && !stored.equals(wanted)) {
            rebind(counter, wanted);
        }
        return escrowCell(counter, nodeCell);
    }

    /** Gives every cell's room to the pool, which then holds the distance from the value to the new bounds. */
    private void rebind(CounterName counter, Bounds wanted) {
        long value = 0;
        for (Map.Entry<String, VersionedValue> cell : escrowValues(counter).entrySet()) {
            value = add(counter, value, cell.getValue().value());
        }
        long heldDown = 0;
        long heldUp = 0;
        for (Operation hold : openHolds(counter)) {
            if (hold.delta() < 0) {
                heldDown = subtract(counter, heldDown, hold.delta());
            } else {
                heldUp = add(counter, heldUp, hold.delta());
            }
        }
        Rooms pool = new Rooms(
                wanted.min() == null ? null : subtract(counter, subtract(counter, value, heldUp), wanted.min()),
                wanted.max() == null ? null : subtract(counter, wanted.max(), add(counter, value, heldDown)));
        Rooms node = new Rooms(wanted.min() == null ? null : 0L, wanted.max() == null ? null : 0L);
        for (String cell : escrowValues(counter).keySet()) {
            putRooms(counter, cell, cell.equals(POOL) ? pool : node);
            addToCell(counter, cell, 0); // a new version, as the database's update
        }
        bounds.put(counter, wanted);
    }

    @Override
    public synchronized boolean change(
            CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta) {
        return changeCell(counter, cell, valueDelta, roomDownDelta, roomUpDelta, true);
    }

    @Override
    public synchronized Optional<EscrowState> changeAndGet(
            CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta, Instant now) {
        if (!bounds.containsKey(counter) || !changeCell(counter, cell, valueDelta, roomDownDelta, roomUpDelta, true)) {
            return Optional.empty();
        }
        return state(counter, now);
    }

    /**
     * Adds to a cell's value and rooms if it exists and, when guarded, none of its rooms goes below 0; whether it was
     * written. Checks everything before writing, so that a refusal or an overflow writes nothing.
     */
    private boolean changeCell(
            CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta, boolean guarded) {
        VersionedValue current = counters.getOrDefault(counter, Map.of()).get(cell);
        if (current == null) {
            return false;
        }
        Rooms changed = plus(counter, roomsOf(counter, cell), roomDownDelta, roomUpDelta);
        if (guarded && !fits(changed, roomDownDelta, roomUpDelta)) {
            return false;
        }
        add(counter, current.value(), valueDelta); // the overflow check, before any write
        addToCell(counter, cell, valueDelta);
        putRooms(counter, cell, changed);
        return true;
    }

    @Override
    public synchronized Optional<EscrowCell> transfer(
            CounterName counter, String nodeCell, long downToNode, long upToNode) {
        String nodeId = nodeId(nodeCell);
        Map<String, VersionedValue> cells = counters.getOrDefault(counter, Map.of());
        if (!cells.containsKey(POOL)) {
            return Optional.empty();
        }
        Rooms pool = roomsOf(counter, POOL);
        boolean exists = cells.containsKey(nodeCell);
        if (!exists && downToNode <= 0 && upToNode <= 0) {
            return Optional.empty();
        }
        Rooms node = exists
                ? roomsOf(counter, nodeCell)
                : new Rooms(pool.down() == null ? null : 0L, pool.up() == null ? null : 0L);
        Rooms nodeAfter = plus(counter, node, downToNode, upToNode);
        Rooms poolAfter = plus(counter, pool, negate(counter, downToNode), negate(counter, upToNode));
        if (!fits(nodeAfter, downToNode, upToNode) || !fits(poolAfter, -downToNode, -upToNode)) {
            return Optional.empty();
        }
        if (!exists) {
            allowances.add(new NodeAllowance(nodeId, counter));
        }
        addToCell(counter, nodeCell, 0); // creates it, or gives it a new version as the database's update
        putRooms(counter, nodeCell, nodeAfter);
        addToCell(counter, POOL, 0);
        putRooms(counter, POOL, poolAfter);
        return escrowCell(counter, POOL);
    }

    @Override
    public synchronized Optional<EscrowCell> retire(CounterName counter, String nodeCell) {
        allowances.remove(new NodeAllowance(nodeId(nodeCell), counter));
        Optional<EscrowCell> node = escrowCell(counter, nodeCell);
        if (node.isEmpty()) {
            return node;
        }
        EscrowCell held = node.get();
        VersionedValue pool = counters.getOrDefault(counter, Map.of()).get(POOL);
        if (pool == null) {
            throw new IllegalStateException("the bounded counter " + counter + " has a node cell but no pool");
        }
        Rooms folded = plus(counter, roomsOf(counter, POOL), orZero(held.roomDown()), orZero(held.roomUp()));
        add(counter, pool.value(), held.value());
        addToCell(counter, POOL, held.value());
        putRooms(counter, POOL, folded);
        counters.computeIfPresent(counter, (name, cells) -> {
            Map<String, VersionedValue> next = new HashMap<>(cells);
            next.remove(nodeCell);
            return Map.copyOf(next);
        });
        rooms.computeIfPresent(counter, (name, cells) -> {
            Map<String, Rooms> next = new HashMap<>(cells);
            next.remove(nodeCell);
            return next.isEmpty() ? null : Map.copyOf(next);
        });
        return node;
    }

    @Override
    public synchronized Optional<EscrowState> state(CounterName counter, Instant now) {
        Bounds bounded = bounds.get(counter);
        if (bounded == null) {
            return Optional.empty();
        }
        long value = total(counter, counters.getOrDefault(counter, Map.of()), false);
        Long roomDown = null;
        Long roomUp = null;
        for (Rooms cell : rooms.getOrDefault(counter, Map.of()).values()) {
            roomDown = sum(counter, roomDown, cell.down());
            roomUp = sum(counter, roomUp, cell.up());
        }
        long[] held = new long[4];
        for (Operation hold : openHolds(counter)) {
            int side = hold.delta() < 0 ? 0 : 1;
            long units = Math.abs(hold.delta());
            held[side] = add(counter, held[side], units);
            if (hold.expiresAt() != null && !hold.expiresAt().isAfter(now)) {
                held[2 + side] = add(counter, held[2 + side], units);
            }
        }
        return Optional.of(new EscrowState(value, bounded, roomDown, roomUp, held[0], held[1], held[2], held[3]));
    }

    @Override
    public synchronized Map<String, EscrowCell> escrowCells(CounterName counter) {
        Map<String, EscrowCell> cells = new HashMap<>();
        escrowValues(counter).forEach((cell, value) -> {
            Rooms room = roomsOf(counter, cell);
            cells.put(cell, new EscrowCell(value.value(), room.down(), room.up()));
        });
        return cells;
    }

    @Override
    public List<CounterName> boundedNames(@Nullable CounterName after, int limit) {
        TreeSet<CounterName> names = new TreeSet<>(bounds.keySet());
        return (after == null ? names : names.tailSet(after, false))
                .stream().limit(limit).toList();
    }

    @Override
    public List<NodeAllowance> allowances(@Nullable NodeAllowance after, int limit) {
        return (after == null ? allowances : allowances.tailSet(after, false))
                .stream().limit(limit).toList();
    }

    /** The counter's escrow cells (pool and nodes) with their values. */
    private Map<String, VersionedValue> escrowValues(CounterName counter) {
        Map<String, VersionedValue> cells = new TreeMap<>();
        counters.getOrDefault(counter, Map.of()).forEach((cell, value) -> {
            if (cell.equals(POOL) || cell.startsWith(NODE_PREFIX)) {
                cells.put(cell, value);
            }
        });
        return cells;
    }

    private Optional<EscrowCell> escrowCell(CounterName counter, String cell) {
        VersionedValue value = counters.getOrDefault(counter, Map.of()).get(cell);
        if (value == null) {
            return Optional.empty();
        }
        Rooms room = roomsOf(counter, cell);
        return Optional.of(new EscrowCell(value.value(), room.down(), room.up()));
    }

    private Rooms roomsOf(CounterName counter, String cell) {
        Rooms room = rooms.getOrDefault(counter, Map.of()).get(cell);
        return room == null ? new Rooms(null, null) : room;
    }

    private void putRooms(CounterName counter, String cell, Rooms room) {
        rooms.compute(counter, (name, cells) -> {
            Map<String, Rooms> next = cells == null ? new HashMap<>() : new HashMap<>(cells);
            next.put(cell, room);
            return Map.copyOf(next);
        });
    }

    /** Sets a cell's value, creating it: the pool of a counter bound for the first time. */
    private void setCell(CounterName counter, String cell, long value) {
        counters.compute(counter, (name, cells) -> {
            Map<String, VersionedValue> next = cells == null ? new HashMap<>() : new HashMap<>(cells);
            VersionedValue current = next.get(cell);
            next.put(cell, new VersionedValue(value, current == null ? 1 : current.version() + 1));
            return Map.copyOf(next);
        });
    }

    private static String nodeId(String nodeCell) {
        if (!nodeCell.startsWith(NODE_PREFIX)) {
            throw new IllegalArgumentException("not a node cell: " + nodeCell);
        }
        return nodeCell.substring(NODE_PREFIX.length());
    }

    /** Rooms plus deltas; a null room stays null, as in SQL. */
    private static Rooms plus(CounterName counter, Rooms room, long down, long up) {
        return new Rooms(
                room.down() == null ? null : add(counter, room.down(), down),
                room.up() == null ? null : add(counter, room.up(), up));
    }

    /**
     * The guard: a room that shrinks must stay at or above 0. One that grows passes even if negative (a bound moved
     * past the value by a rebind), so that changes can bring the value back within its bounds.
     */
    private static boolean fits(Rooms after, long down, long up) {
        return (after.down() == null || down >= 0 || after.down() >= 0)
                && (after.up() == null || up >= 0 || after.up() >= 0);
    }

    private static @Nullable Long sum(CounterName counter, @Nullable Long sum, @Nullable Long room) {
        if (room == null) {
            return sum;
        }
        return sum == null ? room : add(counter, sum, room);
    }

    private static long orZero(@Nullable Long room) {
        return room == null ? 0 : room;
    }

    private static long add(CounterName counter, long a, long b) {
        try {
            return Math.addExact(a, b);
        } catch (ArithmeticException e) {
            throw new CounterOverflowException(counter, b);
        }
    }

    private static long subtract(CounterName counter, long a, long b) {
        try {
            return Math.subtractExact(a, b);
        } catch (ArithmeticException e) {
            throw new CounterOverflowException(counter, b);
        }
    }

    private static long negate(CounterName counter, long a) {
        return subtract(counter, 0, a);
    }

    // ---- holds ----

    @Override
    public synchronized Optional<KeyedOperation> applyKeyed(
            String key,
            CounterName counter,
            long delta,
            @Nullable Instant expiresAt,
            String cell,
            long roomDownDelta,
            long roomUpDelta,
            boolean needsValue,
            Instant now) {
        Operation recorded = operations.get(key);
        if (recorded != null) {
            return Optional.of(recorded.toKeyed(key, false));
        }
        if (!changeCell(counter, cell, delta, roomDownDelta, roomUpDelta, true)) {
            return Optional.empty();
        }
        OptionalLong value = needsValue ? OptionalLong.of(total(counter, true)) : OptionalLong.empty();
        Operation operation = expiresAt == null
                ? new Operation(counter, delta, OperationState.APPLIED, null, value, now)
                : new Operation(counter, delta, OperationState.HELD, expiresAt, value, null);
        operations.put(key, operation);
        return Optional.of(operation.toKeyed(key, true));
    }

    @Override
    public synchronized KeyedOperation recordRefusal(
            String key, CounterName counter, long delta, @Nullable Instant expiresAt, long seenValue, Instant now) {
        Operation recorded = operations.get(key);
        if (recorded != null) {
            return recorded.toKeyed(key, false);
        }
        Operation refusal =
                new Operation(counter, delta, OperationState.REFUSED, expiresAt, OptionalLong.of(seenValue), now);
        operations.put(key, refusal);
        return refusal.toKeyed(key, true);
    }

    @Override
    public Optional<KeyedOperation> operation(String key) {
        Operation recorded = operations.get(key);
        return recorded == null ? Optional.empty() : Optional.of(recorded.toKeyed(key, false));
    }

    @Override
    public synchronized Optional<KeyedOperation> settle(
            String key,
            OperationState to,
            String cell,
            long valueDelta,
            long roomDownDelta,
            long roomUpDelta,
            Instant now) {
        Operation hold = operations.get(key);
        if (hold == null) {
            return Optional.empty();
        }
        if (hold.state() != OperationState.HELD
                || (to == OperationState.CONFIRMED
                        && hold.expiresAt() != null
                        && !hold.expiresAt().isAfter(now))) {
            return Optional.of(hold.toKeyed(key, false));
        }
        if (!changeCell(hold.counter(), cell, valueDelta, roomDownDelta, roomUpDelta, false)) {
            changeCell(hold.counter(), POOL, valueDelta, roomDownDelta, roomUpDelta, false);
        }
        Operation settled = new Operation(hold.counter(), hold.delta(), to, hold.expiresAt(), hold.value(), now);
        operations.put(key, settled);
        return Optional.of(settled.toKeyed(key, true));
    }

    @Override
    public synchronized List<KeyedOperation> dueHolds(@Nullable CounterName counter, Instant now, int limit) {
        return operations.entrySet().stream()
                .filter(entry -> entry.getValue().state() == OperationState.HELD
                        && (counter == null || entry.getValue().counter().equals(counter))
                        && !Objects.requireNonNull(entry.getValue().expiresAt()).isAfter(now))
                .sorted(Comparator.comparing((Map.Entry<String, Operation> entry) ->
                                entry.getValue().expiresAt())
                        .thenComparing(Map.Entry::getKey))
                .limit(limit)
                .map(entry -> entry.getValue().toKeyed(entry.getKey(), false))
                .toList();
    }

    @Override
    public synchronized Optional<EscrowState> seal(CounterName counter, Instant now) {
        Bounds stored = bounds.get(counter);
        if (stored == null) {
            return Optional.empty();
        }
        EscrowState before = state(counter, now).orElseThrow();
        // The units of open holds toward the minimum come back if released: the maximum keeps room for them.
        long max = add(counter, before.value(), before.heldDown());
        for (String cell : escrowValues(counter).keySet()) {
            putRooms(counter, cell, new Rooms(roomsOf(counter, cell).down(), 0L));
            addToCell(counter, cell, 0); // a new version, as the database's update
        }
        bounds.put(counter, new Bounds(stored.min(), max));
        sealed.add(counter);
        return state(counter, now);
    }

    @Override
    public synchronized int pruneOperations(Instant settledBefore, int limit) {
        List<String> old = operations.entrySet().stream()
                .filter(entry -> entry.getValue().settledAt() != null
                        && entry.getValue().settledAt().isBefore(settledBefore))
                .sorted(Comparator.comparing(
                        (Map.Entry<String, Operation> entry) -> entry.getValue().settledAt()))
                .limit(limit)
                .map(Map.Entry::getKey)
                .toList();
        old.forEach(operations::remove);
        return old.size();
    }

    private List<Operation> openHolds(CounterName counter) {
        return operations.values().stream()
                .filter(operation -> operation.state() == OperationState.HELD
                        && operation.counter().equals(counter))
                .toList();
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

    @Override
    public synchronized Gcra acquire(String limiter, String key, long costNanos, long burstNanos, long nowNanos) {
        RateKey rateKey = new RateKey(limiter, key);
        Long tat = tats.get(rateKey);
        long next = Math.max(tat == null ? nowNanos : tat, nowNanos) + costNanos;
        if (next > nowNanos + burstNanos) {
            return new Gcra(false, Objects.requireNonNull(tat)); // absent: a full bucket, which any cost fits
        }
        tats.put(rateKey, next);
        return new Gcra(true, next);
    }

    @Override
    public synchronized OptionalLong tat(String limiter, String key) {
        Long tat = tats.get(new RateKey(limiter, key));
        return tat == null ? OptionalLong.empty() : OptionalLong.of(tat);
    }

    @Override
    public synchronized boolean delete(String limiter, String key) {
        return tats.remove(new RateKey(limiter, key)) != null;
    }

    @Override
    public synchronized int deleteIdle(long beforeNanos, int limit) {
        int deleted = 0;
        for (var keys = tats.values().iterator(); keys.hasNext() && deleted < limit; ) {
            if (keys.next() < beforeNanos) {
                keys.remove();
                deleted++;
            }
        }
        return deleted;
    }

    // ---- members ----

    @Override
    public synchronized List<Boolean> changeMembers(CounterName counter, String cell, List<MemberChange> changes) {
        ConcurrentSkipListSet<String> set = members.computeIfAbsent(counter, name -> new ConcurrentSkipListSet<>());
        List<Boolean> changed = new ArrayList<>(changes.size());
        long delta = 0;
        for (MemberChange change : changes) {
            boolean done = change.add() ? set.add(change.member()) : set.remove(change.member());
            changed.add(done);
            delta += done ? (change.add() ? 1 : -1) : 0;
        }
        if (delta != 0) {
            addToCell(counter, cell, delta);
        }
        if (set.isEmpty()) {
            members.remove(counter);
        }
        return List.copyOf(changed);
    }

    @Override
    public boolean isMember(CounterName counter, String member) {
        ConcurrentSkipListSet<String> set = members.get(counter);
        return set != null && set.contains(member);
    }

    @Override
    public List<String> members(CounterName counter, @Nullable String after, int limit) {
        ConcurrentSkipListSet<String> set = members.get(counter);
        if (set == null) {
            return List.of();
        }
        return (after == null ? set : set.tailSet(after, false))
                .stream().limit(limit).toList();
    }
}
