package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A {@link CounterStore} that passes every call to another one: extend it to add behaviour around a store (metrics,
 * fault injection in tests) by overriding only the methods concerned.
 */
public abstract class ForwardingCounterStore implements CounterStore {

    private final CounterStore delegate;

    protected ForwardingCounterStore(CounterStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    /** The store calls are passed to. */
    protected CounterStore delegate() {
        return delegate;
    }

    @Override
    public List<CounterName> counterNames(@Nullable CounterName after, int limit) {
        return delegate.counterNames(after, limit);
    }

    @Override
    public Optional<CounterStore> callerTransaction() {
        return delegate.callerTransaction();
    }

    @Override
    public <T> Optional<T> capability(Class<T> capability) {
        return delegate.capability(capability);
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
    public boolean delete(CounterName counter) {
        return delegate.delete(counter);
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
    public boolean compareAndSet(CounterName counter, String cell, long expectedVersion, long newValue) {
        return delegate.compareAndSet(counter, cell, expectedVersion, newValue);
    }

    @Override
    public OptionalInt shardCount(CounterName counter) {
        return delegate.shardCount(counter);
    }

    @Override
    public int growShardCount(CounterName counter, int shards) {
        return delegate.growShardCount(counter, shards);
    }

    @Override
    public boolean applyBatch(String key, String cell, Map<CounterName, Long> deltas, Instant now) {
        return delegate.applyBatch(key, cell, deltas, now);
    }

    @Override
    public int pruneBatchKeys(Instant appliedBefore) {
        return delegate.pruneBatchKeys(appliedBefore);
    }

    @Override
    public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
        return delegate.appendDelta(counter, deltaId, delta, now);
    }

    @Override
    public long getFolded(CounterName counter) {
        return delegate.getFolded(counter);
    }

    @Override
    public DeltaBacklog deltaBacklog(CounterName counter) {
        return delegate.deltaBacklog(counter);
    }

    @Override
    public int foldDeltas(CounterName counter, String cell, Instant purgeBefore) {
        return delegate.foldDeltas(counter, cell, purgeBefore);
    }

    @Override
    public void raiseShard(CounterName counter, int shard, long value) {
        delegate.raiseShard(counter, shard, value);
    }

    @Override
    public OptionalLong maxOfShards(CounterName counter) {
        return delegate.maxOfShards(counter);
    }

    @Override
    public boolean tryLease(String key, String owner, Instant expiresAt, Instant now) {
        return delegate.tryLease(key, owner, expiresAt, now);
    }

    @Override
    public void releaseLease(String key, String owner) {
        delegate.releaseLease(key, owner);
    }

    @Override
    public Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue) {
        return delegate.reserve(sequence, count, start, increment, maxValue);
    }

    @Override
    public boolean deleteSequence(CounterName sequence) {
        return delegate.deleteSequence(sequence);
    }
}
