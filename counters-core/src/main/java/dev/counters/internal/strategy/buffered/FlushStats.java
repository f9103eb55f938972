package dev.counters.internal.strategy.buffered;

import dev.counters.StrategyStatistics;
import dev.counters.internal.Time;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * How the flushes went, for log and error messages, metrics and health: written by the flusher thread, read by any.
 */
final class FlushStats {

    private final Time time;
    private final LongAdder flushes = new LongAdder();
    private final LongAdder failedFlushes = new LongAdder();
    private final LongAdder takenKeys = new LongAdder();
    private final LongAdder flushNanos = new LongAdder();
    /** When everything accepted so far was last known durable. */
    private volatile long lastFlushedNanos;
    /** The last flush's failure; null once a flush succeeds. */
    private volatile @Nullable String lastError;

    FlushStats(Time time) {
        this.time = time;
        this.lastFlushedNanos = time.nanoTime();
    }

    /** Everything accepted so far is durable (nothing was pending, or a flush committed it). */
    void upToDate() {
        lastFlushedNanos = time.nanoTime();
    }

    void flushed() {
        lastError = null;
        upToDate();
        flushes.increment();
    }

    void failed(RuntimeException e) {
        failedFlushes.increment();
        lastError = e.toString();
    }

    /** A flush key found recorded by another batch. */
    void keyTaken() {
        takenKeys.increment();
    }

    /** Time spent in a flush attempt. */
    void took(long nanos) {
        flushNanos.add(nanos);
    }

    @Nullable
    String lastError() {
        return lastError;
    }

    /** The strategy's activity, given what the buffer holds now. */
    StrategyStatistics.Activity activity(boolean pending, int counters, long pendingIncrements, int maxCounters) {
        Duration lag = pending ? Duration.ofNanos(time.nanoTime() - lastFlushedNanos) : Duration.ZERO;
        return new StrategyStatistics.Activity(
                takenKeys.sum(),
                failedFlushes.sum(),
                0,
                new StrategyStatistics.BufferActivity(
                        flushes.sum(),
                        failedFlushes.sum(),
                        Duration.ofNanos(flushNanos.sum()),
                        counters,
                        pendingIncrements,
                        maxCounters,
                        lag,
                        lastError));
    }
}
