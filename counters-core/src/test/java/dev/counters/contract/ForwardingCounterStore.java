package dev.counters.contract;

import dev.counters.CounterName;
import dev.counters.sequence.Reservation;
import dev.counters.spi.CounterStore;
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
import dev.counters.spi.SessionLocks;
import dev.counters.spi.ShardCounts;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} that passes every call to another one, capabilities included: extend it to add behaviour
 * around a store (fault injection, interference) by overriding only the methods concerned. It offers a capability
 * exactly when the store it wraps does.
 */
public abstract class ForwardingCounterStore
        implements CounterStore,
                Leases,
                IdempotentBatches,
                IdempotencyKeys,
                IdleCounters,
                DeltaLog,
                ShardCounts,
                Maxima,
                Sequences,
                SessionLocks,
                Escrow,
                Holds,
                RateLimits,
                Members {

    private final CounterStore delegate;

    protected ForwardingCounterStore(CounterStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /**
     * A store whose batches go through {@code around}, which applies each by calling {@code apply} (or not), and may
     * act before or after: a flush that hangs, fails, or fails after it was applied.
     */
    public static ForwardingCounterStore aroundBatches(CounterStore delegate, AroundBatch around) {
        return aroundBatches(delegate, (deltas, keyed, apply) -> around.apply(apply));
    }

    /** The same, for an {@code around} that looks at each batch's deltas and callers' keys too. */
    public static ForwardingCounterStore aroundBatches(CounterStore delegate, AroundBatchOf around) {
        return new ForwardingCounterStore(delegate) {
            @Override
            public AppliedBatch applyBatch(
                    String key,
                    String cell,
                    Map<CounterName, Long> deltas,
                    Map<String, KeyedDelta> keyed,
                    Instant now) {
                return around.apply(deltas, keyed, () -> super.applyBatch(key, cell, deltas, keyed, now));
            }
        };
    }

    /** What {@link #aroundBatches} does with each batch. */
    @FunctionalInterface
    public interface AroundBatch {
        AppliedBatch apply(Supplier<AppliedBatch> apply);
    }

    /** What {@link #aroundBatches} does with each batch, given its deltas and its callers' keys. */
    @FunctionalInterface
    public interface AroundBatchOf {
        AppliedBatch apply(Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed, Supplier<AppliedBatch> apply);
    }

    /** The store calls are passed to. */
    protected CounterStore delegate() {
        return delegate;
    }

    private <T> T delegate(Class<T> capability) {
        return delegate.capability(capability)
                .orElseThrow(() -> new IllegalStateException(
                        delegate.getClass().getSimpleName() + " does not offer " + capability.getSimpleName()));
    }

    @Override
    public <T> Optional<T> capability(Class<T> capability) {
        return delegate.capability(capability)
                .map(offered -> capability.isInstance(this) ? capability.cast(this) : offered);
    }

    @Override
    public Optional<CounterStore> callerTransaction() {
        return delegate.callerTransaction();
    }

    @Override
    public void add(CounterName counter, String cell, long delta) {
        delegate.add(counter, cell, delta);
    }

    @Override
    public long addAndGet(CounterName counter, String cell, long delta) {
        return delegate.addAndGet(counter, cell, delta);
    }

    @Override
    public long get(CounterName counter) {
        return delegate.get(counter);
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> counters) {
        return delegate.getAll(counters);
    }

    @Override
    public Map<String, Long> cells(CounterName counter) {
        return delegate.cells(counter);
    }

    @Override
    public Optional<VersionedValue> read(CounterName counter, String cell) {
        return delegate.read(counter, cell);
    }

    @Override
    public boolean compareAndSet(CounterName counter, String cell, @Nullable VersionedValue expected, long newValue) {
        return delegate.compareAndSet(counter, cell, expected, newValue);
    }

    @Override
    public boolean delete(CounterName counter) {
        return delegate.delete(counter);
    }

    @Override
    public List<CounterName> counterNames(String prefix, @Nullable CounterName after, int limit) {
        return delegate.counterNames(prefix, after, limit);
    }

    @Override
    public boolean tryLease(String key, String owner, Instant expiresAt, Instant now) {
        return delegate(Leases.class).tryLease(key, owner, expiresAt, now);
    }

    @Override
    public void releaseLease(String key, String owner) {
        delegate(Leases.class).releaseLease(key, owner);
    }

    @Override
    public AppliedBatch applyBatch(
            String key, String cell, Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed, Instant now) {
        return delegate(IdempotentBatches.class).applyBatch(key, cell, deltas, keyed, now);
    }

    @Override
    public Map<CounterName, Long> getAllWithBatches(
            Collection<CounterName> counters, Map<String, Map<CounterName, Long>> inFlight) {
        return delegate(IdempotentBatches.class).getAllWithBatches(counters, inFlight);
    }

    @Override
    public int pruneBatchKeys(Instant appliedBefore) {
        return delegate(IdempotentBatches.class).pruneBatchKeys(appliedBefore);
    }

    @Override
    public KeyedIncrement applyOnce(String key, CounterName counter, long delta, Instant now, KeyedWrite write) {
        return delegate(IdempotencyKeys.class).applyOnce(key, counter, delta, now, write);
    }

    @Override
    public int pruneKeys(Instant appliedBefore, int limit) {
        return delegate(IdempotencyKeys.class).pruneKeys(appliedBefore, limit);
    }

    @Override
    public Map<CounterName, Map<String, Long>> cellVersions(Collection<CounterName> counters) {
        return delegate(IdleCounters.class).cellVersions(counters);
    }

    @Override
    public boolean deleteIfUnchanged(CounterName counter, Map<String, Long> cellVersions) {
        return delegate(IdleCounters.class).deleteIfUnchanged(counter, cellVersions);
    }

    @Override
    public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
        return delegate(DeltaLog.class).appendDelta(counter, deltaId, delta, now);
    }

    @Override
    public Map<CounterName, Long> getFolded(Collection<CounterName> counters) {
        return delegate(DeltaLog.class).getFolded(counters);
    }

    @Override
    public Map<String, Long> unfoldedDeltas(CounterName counter, int limit) {
        return delegate(DeltaLog.class).unfoldedDeltas(counter, limit);
    }

    @Override
    public boolean foldDeltas(
            CounterName counter, String cell, Collection<String> deltaIds, long sum, Instant purgeBefore) {
        return delegate(DeltaLog.class).foldDeltas(counter, cell, deltaIds, sum, purgeBefore);
    }

    @Override
    public OptionalInt shardCount(CounterName counter) {
        return delegate(ShardCounts.class).shardCount(counter);
    }

    @Override
    public int growShardCount(CounterName counter, int shards) {
        return delegate(ShardCounts.class).growShardCount(counter, shards);
    }

    @Override
    public void raiseShard(CounterName counter, int shard, long value) {
        delegate(Maxima.class).raiseShard(counter, shard, value);
    }

    @Override
    public OptionalLong maxOfShards(CounterName counter) {
        return delegate(Maxima.class).maxOfShards(counter);
    }

    @Override
    public List<CounterName> maximumNames(@Nullable CounterName after, int limit) {
        return delegate(Maxima.class).maximumNames(after, limit);
    }

    @Override
    public Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue) {
        return delegate(Sequences.class).reserve(sequence, count, start, increment, maxValue);
    }

    @Override
    public Optional<SessionLock> tryLock(String key) {
        return delegate(SessionLocks.class).tryLock(key);
    }

    @Override
    public Optional<EscrowCell> bind(CounterName counter, Bounds bounds, long initial, String nodeCell, Instant now) {
        return delegate(Escrow.class).bind(counter, bounds, initial, nodeCell, now);
    }

    @Override
    public Optional<EscrowCell> bindIfAbsent(
            CounterName counter, Bounds bounds, long initial, String nodeCell, Instant now) {
        return delegate(Escrow.class).bindIfAbsent(counter, bounds, initial, nodeCell, now);
    }

    @Override
    public boolean change(CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta) {
        return delegate(Escrow.class).change(counter, cell, valueDelta, roomDownDelta, roomUpDelta);
    }

    @Override
    public Optional<EscrowState> changeAndGet(
            CounterName counter, String cell, long valueDelta, long roomDownDelta, long roomUpDelta, Instant now) {
        return delegate(Escrow.class).changeAndGet(counter, cell, valueDelta, roomDownDelta, roomUpDelta, now);
    }

    @Override
    public Optional<EscrowCell> transfer(CounterName counter, String nodeCell, long downToNode, long upToNode) {
        return delegate(Escrow.class).transfer(counter, nodeCell, downToNode, upToNode);
    }

    @Override
    public Optional<EscrowCell> retire(CounterName counter, String nodeCell) {
        return delegate(Escrow.class).retire(counter, nodeCell);
    }

    @Override
    public Optional<EscrowState> state(CounterName counter, Instant now) {
        return delegate(Escrow.class).state(counter, now);
    }

    @Override
    public Optional<EscrowState> seal(CounterName counter, Instant now) {
        return delegate(Escrow.class).seal(counter, now);
    }

    @Override
    public Map<String, EscrowCell> escrowCells(CounterName counter) {
        return delegate(Escrow.class).escrowCells(counter);
    }

    @Override
    public List<CounterName> boundedNames(@Nullable CounterName after, int limit) {
        return delegate(Escrow.class).boundedNames(after, limit);
    }

    @Override
    public List<NodeAllowance> allowances(@Nullable NodeAllowance after, int limit) {
        return delegate(Escrow.class).allowances(after, limit);
    }

    @Override
    public Optional<KeyedOperation> applyKeyed(
            String key,
            CounterName counter,
            long delta,
            @Nullable Instant expiresAt,
            String cell,
            long roomDownDelta,
            long roomUpDelta,
            boolean needsValue,
            Instant now) {
        return delegate(Holds.class)
                .applyKeyed(key, counter, delta, expiresAt, cell, roomDownDelta, roomUpDelta, needsValue, now);
    }

    @Override
    public KeyedOperation recordRefusal(
            String key, CounterName counter, long delta, @Nullable Instant expiresAt, long seenValue, Instant now) {
        return delegate(Holds.class).recordRefusal(key, counter, delta, expiresAt, seenValue, now);
    }

    @Override
    public Optional<KeyedOperation> operation(String key) {
        return delegate(Holds.class).operation(key);
    }

    @Override
    public Optional<KeyedOperation> settle(
            String key,
            OperationState to,
            String cell,
            long valueDelta,
            long roomDownDelta,
            long roomUpDelta,
            Instant now) {
        return delegate(Holds.class).settle(key, to, cell, valueDelta, roomDownDelta, roomUpDelta, now);
    }

    @Override
    public List<KeyedOperation> dueHolds(@Nullable CounterName counter, Instant now, int limit) {
        return delegate(Holds.class).dueHolds(counter, now, limit);
    }

    @Override
    public int pruneOperations(Instant settledBefore, int limit) {
        return delegate(Holds.class).pruneOperations(settledBefore, limit);
    }

    @Override
    public Gcra acquire(String limiter, String key, long costNanos, long burstNanos, long nowNanos) {
        return delegate(RateLimits.class).acquire(limiter, key, costNanos, burstNanos, nowNanos);
    }

    @Override
    public OptionalLong tat(String limiter, String key) {
        return delegate(RateLimits.class).tat(limiter, key);
    }

    @Override
    public boolean delete(String limiter, String key) {
        return delegate(RateLimits.class).delete(limiter, key);
    }

    @Override
    public int deleteIdle(long beforeNanos, int limit) {
        return delegate(RateLimits.class).deleteIdle(beforeNanos, limit);
    }

    @Override
    public List<Boolean> changeMembers(CounterName counter, String cell, List<MemberChange> changes) {
        return delegate(Members.class).changeMembers(counter, cell, changes);
    }

    @Override
    public boolean isMember(CounterName counter, String member) {
        return delegate(Members.class).isMember(counter, member);
    }

    @Override
    public List<String> members(CounterName counter, @Nullable String after, int limit) {
        return delegate(Members.class).members(counter, after, limit);
    }
}
