package dev.counters.internal.strategy;

import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.StrategyStatistics;
import dev.counters.TransientStoreException;
import dev.counters.spi.CounterStore;
import dev.counters.spi.CounterStore.VersionedValue;
import dev.counters.strategy.OptimisticSettings;
import io.github.resilience4j.core.IntervalFunction;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Optimistic locking with a version column ("Poor man's distributed counter"): read the cell's value and version, then
 * {@code UPDATE … SET value = ?, version = version + 1 WHERE version = ? AND value = ?}; no row updated is a
 * conflict, retried with exponential backoff and jitter (Resilience4j). The read is skipped while the cell is as
 * this JVM's last write left it.
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
public final class OptimisticStrategy extends CellStrategy {

    private final int maxAttempts;
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder contentionFailures = new LongAdder();

    public OptimisticStrategy(StrategyContext context, OptimisticSettings settings) {
        // One retry for conflicts and rolled-back statements alike (a conflict is a TransientStoreException: nothing
        // was written): an increment sends at most maxAttempts reads and as many compare-and-sets, whatever fails.
        super(
                context,
                StrategyContext.transientFailures(settings.maxAttempts())
                        .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(
                                settings.initialBackoff(), 2.0, 0.5, settings.maxBackoff()))
                        .build());
        this.maxAttempts = settings.maxAttempts();
    }

    @Override
    public StrategyStatistics.Activity activity() {
        return new StrategyStatistics.Activity(conflicts.sum(), retries(), contentionFailures.sum(), null);
    }

    @Override
    public void increment(CounterName name, long delta) {
        increment(name, combiner(name, AtomicStrategy.CELL), delta, false);
    }

    @Override
    public LongConsumer incrementer(CounterName name) {
        return new HeldCell(name, combiner(name, AtomicStrategy.CELL));
    }

    /** A kept handle's increments: it holds the counter's combiner, and skips the combiners' cache. */
    private final class HeldCell implements LongConsumer {

        private final CounterName name;
        private final Combiner combiner;

        HeldCell(CounterName name, Combiner combiner) {
            this.name = name;
            this.combiner = combiner;
        }

        @Override
        public void accept(long delta) {
            increment(name, combiner, delta, false);
        }
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        return increment(name, combiner(name, AtomicStrategy.CELL), delta, true);
    }

    private long increment(CounterName name, Combiner combiner, long delta, boolean needsTotal) {
        Optional<CounterStore> callerTransaction = store.callerTransaction();
        if (callerTransaction.isPresent()) {
            return callerTransaction.get().addAndGet(name, AtomicStrategy.CELL, delta);
        }
        return combiner.submit(delta, needsTotal);
    }

    @Override
    boolean joinsCallerTransactions() {
        return true;
    }

    /**
     * A read and a compare-and-set in the key's transaction. A conflict rolls the key back with it, and the keyed
     * retry tries again; a database that reads a snapshot (MySQL's repeatable read) would repeat the same read inside
     * the transaction. The value, when asked, is read in the same transaction: the counter, not the cell (see
     * {@link CompareAndSet}).
     */
    @Override
    KeyedIncrements.KeyedCellWrite keyedWrite(CounterName name, long delta) {
        return (transaction, needsValue) -> {
            VersionedValue current = transaction.read(name, AtomicStrategy.CELL).orElse(null);
            long value = current == null ? 0 : current.value();
            long next = value + delta;
            if (((value ^ next) & (delta ^ next)) < 0) {
                throw new CounterOverflowException(name, delta);
            }
            if (!transaction.compareAndSet(name, AtomicStrategy.CELL, current, next)) {
                conflicts.increment();
                throw new CounterContentionException(name, 1);
            }
            return needsValue ? OptionalLong.of(transaction.get(name)) : OptionalLong.empty();
        };
    }

    @Override
    Combiner.Write writer(CounterName name, String cell) {
        return new CompareAndSet(name, cell);
    }

    /**
     * The combined writes of one cell: a read and a compare-and-set carrying the batch's deltas, including any queued
     * since the last attempt. It remembers the cell as its own last write left it, and tries that first: while no other
     * writer came between, as with one busy application process, a write is one statement. The compare-and-set checks
     * value and version, so a remembered cell can never overwrite one deleted and written again meanwhile.
     *
     * <p>The compare-and-set guards this one cell, but the counter is more than its cell: the cells and unfolded
     * deltas of other strategies (a counter moved here, or written meanwhile by processes still on the old strategy
     * during a rolling change). So a batch that needs the counter's value reads it after its write, as every strategy
     * reads a counter, rather than taking the cell's value for it.
     */
    private final class CompareAndSet implements Combiner.Write {

        private final CounterName name;
        private final String cell;
        /** The cell after this writer's last write; only the combiner's writer uses it, one write at a time. */
        private @Nullable VersionedValue written;

        CompareAndSet(CounterName name, String cell) {
            this.name = name;
            this.cell = cell;
        }

        @Override
        public long apply(Combiner.Batch batch) {
            long written;
            try {
                written = retrying(() -> attempt(batch.takeQueued()));
            } catch (Conflict e) {
                contentionFailures.add(batch.size());
                throw new CounterContentionException(name, maxAttempts);
            }
            // Outside the retry: a failed read must neither repeat the write nor call it not applied.
            return batch.needsTotal() ? CounterStrategy.readAfterTaken(name, written, () -> get(name)) : 0L;
        }

        /** One read (unless the remembered cell is still current) and one compare-and-set; returns the sum written. */
        private long attempt(long sum) {
            VersionedValue remembered = written;
            written = null; // kept only by a write that succeeds
            if (remembered != null) {
                VersionedValue next = fits(remembered, sum) ? write(remembered, sum) : null;
                if (next != null) {
                    return sum;
                }
                conflicts.increment(); // another writer came between: read, as without a remembered cell
            }
            VersionedValue current = store.read(name, cell).orElse(null);
            if (current != null && !fits(current, sum)) {
                throw new CounterOverflowException(name, sum);
            }
            VersionedValue next = write(current, sum);
            if (next != null) {
                return sum;
            }
            conflicts.increment();
            throw new Conflict(name);
        }

        /** The cell after a compare-and-set from {@code expected}, remembered; null if another writer came first. */
        private @Nullable VersionedValue write(@Nullable VersionedValue expected, long sum) {
            VersionedValue next = expected == null
                    ? new VersionedValue(sum, 1)
                    : new VersionedValue(expected.value() + sum, expected.version() + 1);
            if (!store.compareAndSet(name, cell, expected, next.value())) {
                return null;
            }
            written = next;
            return next;
        }

        private static boolean fits(VersionedValue current, long sum) {
            long next = current.value() + sum;
            return ((current.value() ^ next) & (sum ^ next)) >= 0;
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
