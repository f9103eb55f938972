package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.internal.strategy.buffered.Batch.DurableIncrement;
import dev.counters.strategy.BufferedSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Durable increments and flush calls waiting for the next batch, which starts at once (group commit). At most
 * max-pending-counters wait, as for counters and keys.
 */
final class DurableQueue {

    private final ConcurrentLinkedQueue<DurableIncrement> queue = new ConcurrentLinkedQueue<>();
    /** How many {@link #queue} holds, for its bound. */
    private final AtomicInteger queued = new AtomicInteger();

    private final int max;
    private final Slots slots;
    private final Room room;

    DurableQueue(BufferedSettings settings, Slots slots, Room room) {
        this.max = settings.maxPendingCounters();
        this.slots = slots;
        this.room = room;
    }

    /**
     * Queues the increment (delta 0: a flush call), counted with the others in {@link Slots}, and wakes the flusher;
     * the future completes when the flush carrying it has committed, or fails with the reason it could not be.
     */
    CompletableFuture<Void> add(CounterName name, long delta) {
        for (int n; (n = queued.get()) >= max || !queued.compareAndSet(n, n + 1); ) {
            if (n >= max) {
                room.await(name, this::isFull, n + " durable increments and flushes waiting for their flush");
            }
        }
        DurableIncrement increment = new DurableIncrement(name, delta, new DurableFuture());
        queue.add(increment);
        if (delta != 0) {
            slots.countOther(); // before the flusher wakes, so that the flush taking the increment finds it counted
        }
        room.wakeFlusher();
        return increment.done();
    }

    private boolean isFull() {
        return queued.get() >= max;
    }

    /** Takes every increment queued. */
    List<DurableIncrement> drain() {
        List<DurableIncrement> durable = new ArrayList<>();
        for (DurableIncrement increment; (increment = queue.poll()) != null; ) {
            queued.decrementAndGet();
            durable.add(increment);
        }
        return durable;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }
}
