package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.internal.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A seqlock between the lanes and the reads. A read adds what this node holds (the slots and the batches in flight)
 * to what it reads from the store; a lane moves deltas from the slots into a batch, in microseconds, and the epoch is
 * odd while it does. A read that began or ended in another epoch than the one it saw is read again, so that it never
 * counts a delta twice nor misses one. From a batch into the store needs no epoch: the read checks the batches' keys
 * in the same snapshot ({@link dev.counters.spi.IdempotentBatches#getAllWithBatches}). Lanes move one at a time.
 */
final class FlushEpoch {

    /** How long a read waits for a lane that is moving deltas before it gives up. */
    private static final Duration MOVING_READ_WAIT = Duration.ofSeconds(10);

    private final AtomicLong epoch = new AtomicLong();
    private final ReentrantLock movers = new ReentrantLock();

    private final Time time;
    private final FlushStats stats;

    FlushEpoch(Time time, FlushStats stats) {
        this.time = time;
        this.stats = stats;
    }

    /** A lane starts moving deltas: reads wait until {@link #end()}, and other lanes too. */
    void begin() {
        movers.lock();
        epoch.incrementAndGet();
    }

    void end() {
        epoch.incrementAndGet();
        movers.unlock();
    }

    /**
     * Waits until no lane moves deltas; the epoch then, for {@link #unchanged}. {@code startedNanos} is when the read
     * began, for the deadline.
     *
     * @throws CounterStoreException when the deadline passed: the value cannot be known now
     */
    long awaitReadable(Collection<CounterName> names, long startedNanos) {
        while (true) {
            long seen = epoch.get();
            if ((seen & 1) == 0) {
                return seen;
            }
            if (time.nanoTime() - startedNanos > MOVING_READ_WAIT.toNanos()) {
                String lastError = stats.lastError();
                throw new CounterStoreException(
                        "The value of " + names + " cannot be read while the flusher moves deltas: it has not let"
                                + " go for " + MOVING_READ_WAIT
                                + (lastError == null ? "" : "; last failure: " + lastError),
                        null);
            }
            LockSupport.parkNanos(20_000);
        }
    }

    /** Whether no lane moved deltas since {@link #awaitReadable} returned {@code seen}: what was read holds. */
    boolean unchanged(long seen) {
        return epoch.get() == seen;
    }
}
