package dev.counters.strategy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.StoreUnavailableException;
import dev.counters.TransientStoreException;
import dev.counters.spi.CounterStore;
import dev.counters.spi.VersionedValue;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Optimistic locking with a version column (seed 004): read the cell's value and version, then
 * {@code UPDATE … SET value = ?, version = version + 1 WHERE version = ?}; no row updated is a conflict, retried
 * with exponential backoff and jitter (Resilience4j).
 *
 * <p>As the seed asks, a retry carries every delta that arrived meanwhile: in each JVM one thread at a time writes
 * a counter, on behalf of every caller waiting on it, so a burst of N increments costs a few updates rather than N
 * fighting ones. Every caller learns the outcome of the attempt that carried its delta.
 *
 * <p>Inside a caller's transaction that the store can join, an increment is an upsert in that transaction, not
 * combined with anyone else's: a compare-and-set retried there could not see newer versions under repeatable read,
 * and once written the row stays locked until the transaction ends anyway, so there is nothing left to be
 * optimistic about. The version still moves, so other writers' compare-and-sets see the change.
 */
final class OptimisticStrategy extends CellStrategy {

    private final Retry retry;
    private final int maxAttempts;
    private final LongAdder conflicts = new LongAdder();
    private final LongAdder retries = new LongAdder();
    private final LongAdder contentionFailures = new LongAdder();
    // Weak values: a counter nobody is incrementing needs no combiner, and one in use is held by its callers.
    private final Cache<CounterName, Combiner> combiners = Caffeine.newBuilder().weakValues().build();

    OptimisticStrategy(CounterStore store, OptimisticSettings settings) {
        super(store);
        this.maxAttempts = settings.maxAttempts();
        this.retry = Retry.of("counters-optimistic", RetryConfig.<OptionalLong>custom()
                .maxAttempts(settings.maxAttempts())
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(settings.initialBackoff(), 2.0, 0.5,
                        settings.maxBackoff()))
                .retryOnResult(OptionalLong::isEmpty)
                .retryExceptions(TransientStoreException.class)
                .ignoreExceptions(StoreUnavailableException.class) // it already waited the pool's timeout
                .build());
        this.retry.getEventPublisher().onRetry(event -> retries.increment());
    }

    @Override
    public String type() {
        return "optimistic";
    }

    @Override
    public StrategyActivity activity() {
        return new StrategyActivity(conflicts.sum(), retries.sum(), contentionFailures.sum(), null);
    }

    @Override
    public void increment(CounterName name, long delta) {
        incrementAndGet(name, delta);
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        Optional<CounterStore> callerTransaction = store.callerTransaction();
        if (callerTransaction.isPresent()) {
            return callerTransaction.get().addAndGet(name, AtomicStrategy.CELL, delta);
        }
        return combiners.get(name, Combiner::new).submit(delta);
    }

    private record Pending(long delta, CompletableFuture<Long> result) {
    }

    /** Combines the concurrent increments of one counter into as few compare-and-set attempts as it can. */
    private final class Combiner {

        private final CounterName name;
        private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean writing = new AtomicBoolean();

        Combiner(CounterName name) {
            this.name = name;
        }

        long submit(long delta) {
            Pending mine = new Pending(delta, new CompletableFuture<>());
            queue.add(mine);
            boolean interrupted = false;
            while (!mine.result().isDone()) {
                if (writing.compareAndSet(false, true)) {
                    try {
                        // Our delta is still queued (no other writer holds the counter), so each batch takes it.
                        while (!mine.result().isDone()) {
                            writeBatch();
                        }
                    } finally {
                        writing.set(false);
                    }
                } else {
                    // Another caller is writing; it may carry our delta, or finish first and leave it to us.
                    // The wait is not interruptible: a queued delta may still be written, so the caller must
                    // learn its outcome.
                    try {
                        mine.result().get(1, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException | ExecutionException e) {
                        // loop: done, or time to try writing ourselves
                    } catch (InterruptedException e) {
                        interrupted = true;
                    }
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            try {
                return mine.result().join();
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
        }

        private void writeBatch() {
            List<Pending> batch = new ArrayList<>();
            try {
                OptionalLong committed = retry.executeSupplier(() -> attempt(batch));
                if (committed.isEmpty()) {
                    contentionFailures.add(batch.size());
                    fail(batch, new CounterContentionException(name, maxAttempts));
                } else {
                    batch.forEach(pending -> pending.result().complete(committed.getAsLong()));
                }
            } catch (RuntimeException e) {
                fail(batch, e);
            }
        }

        /** One attempt, carrying every delta queued so far: the committed value, or empty on a conflict. */
        private OptionalLong attempt(List<Pending> batch) {
            for (Pending pending; (pending = queue.poll()) != null; ) {
                batch.add(pending);
            }
            long sum = 0;
            for (Pending pending : batch) {
                sum = addOrThrow(sum, pending.delta(), pending.delta());
            }
            Optional<VersionedValue> current = store.read(name, AtomicStrategy.CELL);
            long value = current.map(VersionedValue::value).orElse(0L);
            long version = current.map(VersionedValue::version).orElse(0L);
            long next = addOrThrow(value, sum, sum);
            if (store.compareAndSet(name, AtomicStrategy.CELL, version, next)) {
                return OptionalLong.of(next);
            }
            conflicts.increment();
            return OptionalLong.empty();
        }

        private long addOrThrow(long a, long b, long delta) {
            try {
                return Math.addExact(a, b);
            } catch (ArithmeticException e) {
                throw new CounterOverflowException(name, delta);
            }
        }

        private static void fail(List<Pending> batch, RuntimeException e) {
            batch.forEach(pending -> pending.result().completeExceptionally(e));
        }
    }
}
