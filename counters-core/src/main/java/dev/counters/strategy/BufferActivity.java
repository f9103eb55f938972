package dev.counters.strategy;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The state of a write-behind buffer.
 *
 * @param flushes flushes that committed
 * @param failedFlushes flush attempts that failed (each is retried with the same key)
 * @param flushTime total time spent in flush attempts, failed ones included
 * @param pendingCounters counters holding increments not yet written (the bound applies to this)
 * @param pendingIncrements increments made since the last flush started
 * @param maxPendingCounters the bound on {@code pendingCounters}
 * @param flushLag how long the oldest unwritten increment may have waited: the time since the last successful
 *     flush while anything is pending, zero otherwise
 * @param lastFailure why the last flush attempt failed, while the store keeps failing; null once a flush succeeds
 */
public record BufferActivity(long flushes, long failedFlushes, Duration flushTime, int pendingCounters,
        long pendingIncrements, int maxPendingCounters, Duration flushLag, @Nullable String lastFailure) {

    /** Whether the flusher is failing to reach the store. */
    public boolean failing() {
        return lastFailure != null;
    }

    /** Whether the buffer is at its bound, so new counters are refused or wait. */
    public boolean full() {
        return pendingCounters >= maxPendingCounters;
    }
}
