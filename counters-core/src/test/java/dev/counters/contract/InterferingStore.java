package dev.counters.contract;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import dev.counters.spi.VersionedValue;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a real store, counts compare-and-set statements, and can play a competing writer: before each of the next
 * {@code conflicts} compare-and-sets it really changes the cell's version in the store (adding 0), so the
 * compare-and-set meets a genuine conflict in the database.
 */
public final class InterferingStore implements CounterStore {

    private final CounterStore delegate;
    private final long latencyNanos;
    private final AtomicInteger conflictsLeft = new AtomicInteger();
    public final AtomicInteger compareAndSets = new AtomicInteger();
    public final AtomicInteger successfulCompareAndSets = new AtomicInteger();

    public InterferingStore(CounterStore delegate) {
        this(delegate, java.time.Duration.ZERO);
    }

    /** With {@code latency} added to each compare-and-set, as a network round trip would (for in-memory stores). */
    public InterferingStore(CounterStore delegate, java.time.Duration latency) {
        this.delegate = delegate;
        this.latencyNanos = latency.toNanos();
    }

    public void conflictNext(int conflicts) {
        conflictsLeft.set(conflicts);
    }

    @Override
    public boolean compareAndSet(CounterName counter, String cell, long expectedVersion, long newValue) {
        compareAndSets.incrementAndGet();
        if (latencyNanos > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(latencyNanos);
        }
        if (conflictsLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            delegate.add(counter, cell, 0);
        }
        boolean written = delegate.compareAndSet(counter, cell, expectedVersion, newValue);
        if (written) {
            successfulCompareAndSets.incrementAndGet();
        }
        return written;
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
    public OptionalInt shardCount(CounterName counter) {
        return delegate.shardCount(counter);
    }

    @Override
    public int growShardCount(CounterName counter, int shards) {
        return delegate.growShardCount(counter, shards);
    }

    @Override
    public boolean tryLease(String key, String owner, Instant expiresAt, Instant now) {
        return delegate.tryLease(key, owner, expiresAt, now);
    }

    @Override
    public void releaseLease(String key, String owner) {
        delegate.releaseLease(key, owner);
    }
}
