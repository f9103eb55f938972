package dev.counters.contract;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Wraps a real store, counts reads and compare-and-set statements, and can play a competing writer: before each of the next
 * {@code conflicts} compare-and-sets it really changes the cell's version in the store (adding 0), so the
 * compare-and-set meets a genuine conflict in the database.
 */
public final class InterferingStore extends ForwardingCounterStore {

    private final long latencyNanos;
    private final AtomicInteger conflictsLeft = new AtomicInteger();
    public final AtomicInteger reads = new AtomicInteger();
    public final AtomicInteger compareAndSets = new AtomicInteger();
    public final AtomicInteger successfulCompareAndSets = new AtomicInteger();

    public InterferingStore(CounterStore delegate) {
        this(delegate, java.time.Duration.ZERO);
    }

    /** With {@code latency} added to each compare-and-set, as a network round trip would (for in-memory stores). */
    public InterferingStore(CounterStore delegate, java.time.Duration latency) {
        super(delegate);
        this.latencyNanos = latency.toNanos();
    }

    public void conflictNext(int conflicts) {
        conflictsLeft.set(conflicts);
    }

    @Override
    public Optional<VersionedValue> read(CounterName counter, String cell) {
        reads.incrementAndGet();
        return delegate().read(counter, cell);
    }

    @Override
    public boolean compareAndSet(CounterName counter, String cell, @Nullable VersionedValue expected, long newValue) {
        compareAndSets.incrementAndGet();
        if (latencyNanos > 0) {
            // Sleep, not park: a park returns at once on a permit left by the combiner's hand-offs between threads.
            try {
                TimeUnit.NANOSECONDS.sleep(latencyNanos);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (conflictsLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
            delegate().add(counter, cell, 0);
        }
        boolean written = delegate().compareAndSet(counter, cell, expected, newValue);
        if (written) {
            successfulCompareAndSets.incrementAndGet();
        }
        return written;
    }
}
