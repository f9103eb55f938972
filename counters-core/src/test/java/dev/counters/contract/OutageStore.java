package dev.counters.contract;

import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.spi.CounterStore;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import dev.counters.spi.IdempotentBatches.AppliedBatch;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a real store; while {@link #down} is set, batches fail as a lost connection would. Counts batch calls.
 */
public final class OutageStore extends ForwardingCounterStore {

    public volatile boolean down;
    public final AtomicInteger batches = new AtomicInteger();
    public final AtomicInteger failedBatches = new AtomicInteger();

    public OutageStore(CounterStore delegate) {
        super(delegate);
    }

    @Override
    public AppliedBatch applyBatch(
            String key, String cell, Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed, Instant now) {
        batches.incrementAndGet();
        if (down) {
            failedBatches.incrementAndGet();
            throw new CounterStoreException("the store is down (test)", null);
        }
        return super.applyBatch(key, cell, deltas, keyed, now);
    }
}
