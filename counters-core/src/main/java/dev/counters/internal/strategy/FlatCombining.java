package dev.counters.internal.strategy;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Flat combining over one stored row: callers queue what they want written; the first to find the row free becomes
 * its writer and writes batches of what is queued until its own is done; the others wait for the write that carries
 * theirs, and learn its outcome. {@link Combiner} batches deltas, {@link MemberCombiner} membership changes.
 *
 * @param <W> a caller waiting for its write
 */
abstract class FlatCombining<W extends FlatCombining.Waiter> {

    /** If a wake-up is missed, a waiting caller looks again this soon. */
    private static final long PARK_NANOS = 1_000_000;

    final ConcurrentLinkedQueue<W> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean writing = new AtomicBoolean();

    /** Whether a write is in flight: a caller that can choose another row may prefer one that is free. */
    final boolean busy() {
        return writing.get();
    }

    /**
     * Queues {@code mine}, then writes batches while the row is free, or waits for the writer of the batch that takes
     * it. Returns whether it is done; false only when a writer of another caller's still held the row after
     * {@code timeoutNanos} ({@link Long#MAX_VALUE}: no limit), and a write may then have taken {@code mine} or not.
     */
    final boolean await(W mine, long timeoutNanos) {
        long start = System.nanoTime();
        queue.add(mine);
        boolean interrupted = false;
        while (!mine.done) {
            if (writing.compareAndSet(false, true)) {
                try {
                    // Ours stays queued until a batch takes it, and only the writer takes batches.
                    while (!mine.done) {
                        writeBatch();
                    }
                } finally {
                    writing.set(false);
                    W next = queue.peek();
                    if (next != null) {
                        LockSupport.unpark(next.thread); // hand the row to the next waiting caller
                    }
                }
            } else {
                long left = timeoutNanos - (System.nanoTime() - start);
                if (left <= 0) {
                    break;
                }
                // Not interruptible: a queued change may still be written, and its caller must learn the outcome.
                LockSupport.parkNanos(this, Math.min(PARK_NANOS, left));
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return mine.done;
    }

    /** One write of queued callers' changes, at least the first queued; completes or fails every caller it took. */
    abstract void writeBatch();

    /** A caller of {@link #await}, created on its own thread. */
    abstract static class Waiter {

        final Thread thread = Thread.currentThread();
        volatile boolean done;

        @Nullable
        Throwable failure;

        final void fail(Throwable failure) {
            this.failure = failure;
            finish();
        }

        /** Marks it done, publishing what was written before, and wakes its caller. */
        final void finish() {
            done = true;
            LockSupport.unpark(thread);
        }

        /** Throws the failure of its write, if it failed. */
        final void rethrowFailure() {
            if (failure instanceof RuntimeException e) {
                throw e;
            }
            if (failure instanceof Error e) {
                throw e;
            }
        }
    }
}
