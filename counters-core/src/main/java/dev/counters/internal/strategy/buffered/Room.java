package dev.counters.internal.strategy.buffered;

import dev.counters.BufferFullException;
import dev.counters.CounterName;
import dev.counters.internal.Time;
import dev.counters.strategy.BufferedSettings;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Back-pressure, where callers and the flusher meet. The buffer holds at most max-pending-counters counters, keys, and
 * durable calls each; a caller that finds one full wakes the flusher and waits here for the room a flush makes
 * ({@code when-full: block}, up to the block timeout), or is refused at once ({@code when-full: reject}).
 */
final class Room {

    private final BufferedSettings settings;
    private final Time time;
    private final CloseGate gate;
    private final FlushStats stats;
    private final Runnable wakeFlusher;
    private final Object lock = new Object();

    Room(BufferedSettings settings, Time time, CloseGate gate, FlushStats stats, Runnable wakeFlusher) {
        this.settings = settings;
        this.time = time;
        this.gate = gate;
        this.stats = stats;
        this.wakeFlusher = wakeFlusher;
    }

    /** Has the flusher look at once whether a flush is due, instead of at its next poll. */
    void wakeFlusher() {
        wakeFlusher.run();
    }

    /**
     * Waits while {@code full} (with {@code when-full: block}, up to the block timeout), then refuses the increment of
     * {@code name} if still full. {@code holding} says what the buffer holds, for the message.
     *
     * @throws BufferFullException when still full
     * @throws IllegalStateException once closing began: closing waits for this caller, so it is not kept
     */
    void await(CounterName name, BooleanSupplier full, String holding) {
        long deadline = time.nanoTime() + settings.blockTimeout().toNanos();
        if (settings.whenFull() == BufferedSettings.WhenFull.BLOCK) {
            wakeFlusher();
            synchronized (lock) {
                long left;
                while (full.getAsBoolean() && !gate.isClosed() && (left = deadline - time.nanoTime()) > 0) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(lock, left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
        if (gate.isClosed()) {
            throw CloseGate.refused(name);
        }
        if (full.getAsBoolean()) {
            String lastError = stats.lastError();
            throw new BufferFullException("The buffer holds pending increments for " + holding
                    + ", its limit (max-pending-counters); counter '" + name + "' was not incremented"
                    + (lastError == null ? "" : ". The store is failing: " + lastError));
        }
    }

    /** Wakes the callers waiting for room, after a flush (which may have made some) or when closing begins. */
    void wakeWaiting() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }
}
