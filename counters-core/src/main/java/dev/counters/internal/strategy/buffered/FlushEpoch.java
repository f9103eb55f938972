package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.internal.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A seqlock between the flusher and the reads. A read adds what this node holds (the slots and the batch in flight)
 * to the stored value; the flusher moves deltas between those three places. The epoch is odd while it moves them, and
 * a read that began or ended in another epoch than the one it saw is read again, so that it never counts a delta
 * twice nor misses one. Every wait has a deadline.
 */
final class FlushEpoch {

    /** How long a read waits for the retry of a flush whose outcome is unknown before it gives up. */
    private static final Duration UNCERTAIN_READ_WAIT = Duration.ofSeconds(2);

    /** How long a read waits for a flush that is moving deltas into the store before it gives up. */
    private static final Duration FLUSHING_READ_WAIT = Duration.ofSeconds(10);

    private final AtomicLong epoch = new AtomicLong();
    /** The batch in flight may have been applied (its last attempt's outcome is unknown): reads cannot add it. */
    private volatile boolean uncertain;

    private final Time time;
    private final FlushStats stats;

    FlushEpoch(Time time, FlushStats stats) {
        this.time = time;
        this.stats = stats;
    }

    /** The flusher starts moving deltas: reads wait until {@link #end()}. */
    void begin() {
        epoch.incrementAndGet();
    }

    void end() {
        epoch.incrementAndGet();
    }

    /**
     * Whether the store may or may not hold the batch in flight. Stays set until the batch is settled: a later attempt
     * that surely failed says nothing about this one.
     */
    boolean uncertain() {
        return uncertain;
    }

    void uncertain(boolean uncertain) {
        this.uncertain = uncertain;
    }

    /**
     * Waits until no flush moves deltas and the batch in flight, if any, is surely not applied; the epoch then, for
     * {@link #unchanged}. {@code startedNanos} is when the read began, for the deadlines.
     *
     * @throws CounterStoreException when a deadline passed: the value cannot be known now
     */
    long awaitReadable(Collection<CounterName> names, long startedNanos) {
        while (true) {
            long seen = epoch.get();
            if (uncertain) {
                // Adding the batch being retried could count it twice. Wait for the retry to settle it, or fail rather
                // than return a wrong value.
                if (time.nanoTime() - startedNanos > UNCERTAIN_READ_WAIT.toNanos()) {
                    throw new CounterStoreException(
                            "The value of " + names + " is uncertain while a flush whose "
                                    + "outcome is unknown is retried: " + stats.lastError(),
                            null);
                }
                LockSupport.parkNanos(1_000_000);
                continue;
            }
            if (time.nanoTime() - startedNanos > FLUSHING_READ_WAIT.toNanos()) {
                String lastError = stats.lastError();
                throw new CounterStoreException(
                        "The value of " + names + " cannot be read while the flusher moves"
                                + " deltas into the store: it has not let go for " + FLUSHING_READ_WAIT
                                + (lastError == null ? "" : "; last failure: " + lastError),
                        null);
            }
            if ((seen & 1) == 0) {
                return seen;
            }
            LockSupport.parkNanos(50_000); // a flush is moving deltas: wait for it
        }
    }

    /** Whether no flush moved deltas since {@link #awaitReadable} returned {@code seen}: what was read holds. */
    boolean unchanged(long seen) {
        return epoch.get() == seen;
    }
}
