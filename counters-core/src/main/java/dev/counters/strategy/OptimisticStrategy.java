package dev.counters.strategy;

import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.StrategyStatistics;
import dev.counters.TransientStoreException;
import dev.counters.internal.StrategyContext;
import dev.counters.spi.CounterStore.VersionedValue;
import dev.counters.spi.CounterStore;
import io.github.resilience4j.core.IntervalFunction;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * Optimistic locking with a version column ("Poor man's distributed counter"): read the cell's value and version, then
 * {@code UPDATE … SET value = ?, version = version + 1 WHERE version = ?}; no row updated is a conflict, retried
 * with exponential backoff and jitter (Resilience4j).
 *
 * <p>As the write-up asks, a retry carries every delta that arrived meanwhile: in each JVM one thread at a time writes
 * a counter, on behalf of every caller waiting on it ({@link Combiner}), so a burst of N increments costs a few
 * updates rather than N fighting ones. Every caller learns the outcome of the attempt that carried its delta.
 *
 * <p>Inside a caller's transaction that the store can join, an increment is an upsert in that transaction, not
 * combined with anyone else's: a compare-and-set retried there could not see newer versions under repeatable read,
 * and once written the row stays locked until the transaction ends anyway, so there is nothing left to be
 * optimistic about. The version still moves, so other writers' compare-and-sets see the change.
 */
final class OptimisticStrategy extends CellStrategy {

    private final int maxAttempts;
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder contentionFailures = new LongAdder();

    OptimisticStrategy(StrategyContext context, OptimisticSettings settings) {
        // One retry for conflicts and rolled-back statements alike (a conflict is a TransientStoreException: nothing
        // was written): an increment sends at most maxAttempts reads and as many compare-and-sets, whatever fails.
        super(context, "optimistic", StrategyContext.transientFailures(settings.maxAttempts())
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(settings.initialBackoff(), 2.0, 0.5,
                        settings.maxBackoff()))
                .build());
        this.maxAttempts = settings.maxAttempts();
    }

    @Override
    public String type() {
        return "optimistic";
    }

    @Override
    public StrategyStatistics.Activity activity() {
        return new StrategyStatistics.Activity(conflicts.sum(), retries(), contentionFailures.sum(), null);
    }

    @Override
    public void increment(CounterName name, long delta) {
        incrementAndGet(name, delta);
    }

    /** Holds the counter's combiner, so that an increment through a kept handle skips the combiners' cache. */
    @Override
    public LongConsumer incrementer(CounterName name) {
        Combiner combiner = combiner(name, AtomicStrategy.CELL);
        return delta -> incrementAndGet(name, combiner, delta);
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        return incrementAndGet(name, combiner(name, AtomicStrategy.CELL), delta);
    }

    private long incrementAndGet(CounterName name, Combiner combiner, long delta) {
        Optional<CounterStore> callerTransaction = store.callerTransaction();
        if (callerTransaction.isPresent()) {
            return callerTransaction.get().addAndGet(name, AtomicStrategy.CELL, delta);
        }
        return combiner.submit(delta, true);
    }

    /** One read and compare-and-set carrying the batch's deltas, including any queued since the last attempt. */
    @Override
    long write(CounterName name, String cell, Combiner.Batch batch) {
        try {
            return retrying(() -> {
                long sum = batch.sum();
                Optional<VersionedValue> current = store.read(name, cell);
                long value = current.map(VersionedValue::value).orElse(0L);
                long version = current.map(VersionedValue::version).orElse(0L);
                long next;
                try {
                    next = Math.addExact(value, sum);
                } catch (ArithmeticException e) {
                    throw new CounterOverflowException(name, sum);
                }
                if (store.compareAndSet(name, cell, version, next)) {
                    return next;
                }
                conflicts.increment();
                throw new Conflict(name);
            });
        } catch (Conflict e) {
            contentionFailures.add(batch.size());
            throw new CounterContentionException(name, maxAttempts);
        }
    }

    /** Another writer changed the counter between the read and the compare-and-set: nothing was written. */
    private static final class Conflict extends TransientStoreException {

        private static final long serialVersionUID = 1L;

        Conflict(CounterName name) {
            super("Counter '" + name + "' was changed by another writer; nothing was written", null);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // a conflict is an expected outcome, often repeated: no stack to record
        }
    }
}
