package dev.counters.strategy;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * The state of a buffered strategy's buffer and flusher.
 *
 * @param pendingCounters counters with a slot in the buffer
 * @param maxPendingCounters the limit on {@code pendingCounters}
 * @param pendingIncrements increments since the last flush started (approximate)
 * @param inFlightCounters counters in the flush being written (or retried)
 * @param flushes flushes committed
 * @param failedFlushes flush attempts that failed
 * @param consecutiveFailures failed attempts since the last success
 * @param lostDeltas deltas dropped (a counter that would overflow, or pending at a close that timed out)
 * @param lastFlush when the last flush committed, if any did
 * @param lastError the last flush failure, cleared by a success
 * @param circuit the state of the circuit breaker around the store (CLOSED, OPEN, HALF_OPEN)
 */
public record BufferedStatus(int pendingCounters, int maxPendingCounters, long pendingIncrements,
        int inFlightCounters, long flushes, long failedFlushes, int consecutiveFailures, long lostDeltas,
        @Nullable Instant lastFlush, @Nullable String lastError, String circuit) {

    /** Whether the buffer has reached its limit on counters. */
    public boolean full() {
        return pendingCounters >= maxPendingCounters;
    }
}
