package dev.counters.sequence;

import dev.counters.CounterName;
import dev.counters.internal.Observations;
import dev.counters.internal.Retries;
import dev.counters.observation.CountersObservationContext;
import dev.counters.spi.Sequences;
import io.github.resilience4j.retry.Retry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Block allocation (hi/lo, pooled-lo): one round trip reserves a block of numbers, which are then handed out from
 * memory without a lock; when half of a block is gone the next one is reserved in the background, so a burst does not
 * wait on the database at the block boundary. "Implementing Sequences with Google AppEngine" gets its numbers from a
 * sharded durable counter and a cached counter re-synchronised under a lock; a reserved block gives the same speed with
 * uniqueness guaranteed by one atomic reservation, even when nodes start at once or crash.
 *
 * <p>The block size follows the draw rate: while half a block goes in under {@value #FAST_MILLIS} ms, the next block
 * is twice as large, up to {@link SequenceSettings#maxBlockSize()}; once half a block took over
 * {@value #IDLE_SECONDS} s, the next is back at {@link SequenceSettings#blockSize()}. A busy sequence thus reserves a
 * few blocks a second, and a quiet one loses at most a small block on restart.
 */
final class BlockSequence implements Sequence {

    private final CounterName name;
    private final Sequences store;
    private final Retry retry;
    private final SequenceSettings settings;
    private final Executor prefetcher;
    private final Observations observations;
    private final ReentrantLock refill = new ReentrantLock();
    private final AtomicReference<@Nullable CompletableFuture<Reservation>> prefetched = new AtomicReference<>();
    private volatile @Nullable Block current;
    private final LongSupplier ticker;
    /** The size of the next block to reserve. */
    private volatile long blockSize;

    static final int FAST_MILLIS = 100;
    static final int IDLE_SECONDS = 10;

    /**
     * A reserved block, how many of its numbers were taken (it may count past the block's size), when its next block
     * is reserved, and when it was put in use.
     */
    private record Block(Reservation reservation, AtomicLong taken, long prefetchAt, long startedAt) {}

    BlockSequence(
            CounterName name,
            Sequences store,
            Retry retry,
            SequenceSettings settings,
            Executor prefetcher,
            LongSupplier ticker,
            Observations observations) {
        this.name = name;
        this.store = store;
        this.retry = retry;
        this.settings = settings;
        this.prefetcher = prefetcher;
        this.observations = observations;
        this.ticker = ticker;
        this.blockSize = settings.blockSize();
    }

    @Override
    public String name() {
        return name.value();
    }

    @Override
    public SequenceSettings settings() {
        return settings;
    }

    /**
     * A number from the current block without a lock, or else under the refill lock: from the block another caller
     * put in meanwhile, or from a new one whose first number is this caller's. So a call reserves at most one block
     * (one reservation, repeated only by the sequences' retry), however many callers drain blocks at once.
     */
    @Override
    public long next() {
        Block block = current;
        if (block != null) {
            long index = block.taken().getAndIncrement();
            if (index < block.reservation().count()) {
                return handOut(block, index);
            }
        }
        return refillAndTake();
    }

    private long handOut(Block block, long index) {
        if (index == block.prefetchAt()) {
            prefetch(block);
        }
        return block.reservation().value(index);
    }

    /**
     * Reserves {@code count} consecutive numbers in one round trip. What is left of the current and of a prefetched
     * block is given up (a gap), so that this caller's later numbers still come after these.
     */
    @Override
    public Reservation next(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("Sequence '" + name + "': count must be >= 1, was " + count);
        }
        refill.lock();
        try {
            CompletableFuture<Reservation> pending = prefetched.getAndSet(null);
            if (pending != null) {
                pending.exceptionally(e -> null).join();
            }
            current = null;
            return reserve(count);
        } finally {
            refill.unlock();
        }
    }

    private long refillAndTake() {
        refill.lock();
        try {
            Block exhausted = current;
            if (exhausted != null) {
                long index = exhausted.taken().getAndIncrement();
                if (index < exhausted.reservation().count()) {
                    return handOut(exhausted, index); // another thread refilled already
                }
            }
            Reservation next = takePrefetched();
            if (next != null
                    && exhausted != null
                    && next.first() < exhausted.reservation().last()) {
                // Reserved before the block it should follow: handing it out would make numbers go down for some
                // callers. Prefetches are decided under the lock, so this should not happen; if it does, a gap.
                next = null;
            }
            Reservation reservation = next != null ? next : reserve(blockSize);
            Block block = new Block(reservation, new AtomicLong(1), reservation.count() / 2, ticker.getAsLong());
            current = block;
            return handOut(block, 0);
        } finally {
            refill.unlock();
        }
    }

    /** The block reserved in the background, if there is one and its reservation worked. */
    private @Nullable Reservation takePrefetched() {
        CompletableFuture<Reservation> pending = prefetched.getAndSet(null);
        if (pending == null) {
            return null;
        }
        try {
            return pending.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure
                    && failure instanceof dev.counters.SequenceExhaustedException) {
                throw failure;
            }
            return null; // the store failed in the background: try again in this thread
        }
    }

    /**
     * Starts reserving the block after {@code forBlock}, under the refill lock so that it cannot race the refill that
     * replaces {@code forBlock}: a prefetch decided just before that refill would be taken for the block after the
     * new one, and given up as out of order. While a refill holds the lock there is no prefetch; the next block is
     * then reserved when needed.
     */
    @SuppressWarnings("ReferenceEquality") // the very block the caller drew from, not an equal one
    private void prefetch(Block forBlock) {
        if (!refill.tryLock()) {
            return;
        }
        try {
            if (current != forBlock || prefetched.get() != null) {
                return;
            }
            CompletableFuture<Reservation> pending = new CompletableFuture<>();
            prefetched.set(pending);
            long size = nextSize(forBlock);
            blockSize = size;
            try {
                prefetcher.execute(() -> {
                    try {
                        pending.complete(reserve(size));
                    } catch (RuntimeException e) {
                        pending.completeExceptionally(e);
                    }
                });
            } catch (RuntimeException e) {
                pending.completeExceptionally(e); // executor shut down: reserve in the caller's thread later
            }
        } finally {
            refill.unlock();
        }
    }

    /** The size of the block after {@code block}, from how long half of it lasted. */
    private long nextSize(Block block) {
        long halfLasted = ticker.getAsLong() - block.startedAt();
        if (halfLasted < TimeUnit.MILLISECONDS.toNanos(FAST_MILLIS)) {
            return Math.min(blockSize * 2, settings.maxBlockSize());
        }
        return halfLasted > TimeUnit.SECONDS.toNanos(IDLE_SECONDS) ? settings.blockSize() : blockSize;
    }

    private Reservation reserve(long count) {
        // Retried only when surely not reserved (by default); a reservation whose outcome is unknown is a gap at worst,
        // and makes the call's failure unknown whatever a later attempt says (Retries).
        return observations.observe(
                () -> CountersObservationContext.sequence(name.value(), "block"),
                () -> Retries.write(
                        retry,
                        () -> store.reserve(name, count, settings.start(), settings.increment(), settings.maxValue())));
    }
}
