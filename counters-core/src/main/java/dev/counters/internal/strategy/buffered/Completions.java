package dev.counters.internal.strategy.buffered;

import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Completes the futures a strategy handed out, on threads that hold no library state. Completing a future runs the
 * caller's dependent stages on the completing thread: on a flusher they could wait for the flusher itself (a read
 * of the same counter, a {@code flush().join()}) and stop it for good.
 *
 * <p>Each call is one task; a thread is reused while idle, and a new one started while the others are busy, so a
 * stage that waits for a later flush never waits for itself. A stage that blocks holds back only the futures of its
 * own call that come after it.
 */
final class Completions {

    private final ThreadPoolExecutor pool;

    Completions(ThreadFactory threads) {
        this.pool =
                new ThreadPoolExecutor(0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), threads);
    }

    /**
     * Completes each future, normally when {@code failure} is null, else with it; the callers waiting for one are woken
     * at once, on this thread (see {@link DurableFuture}).
     */
    void complete(List<DurableFuture> futures, @Nullable Throwable failure) {
        if (futures.isEmpty()) {
            return;
        }
        futures.forEach(future -> future.wake(failure));
        Runnable task = () -> {
            for (DurableFuture future : futures) {
                if (failure == null) {
                    future.complete(null);
                } else {
                    future.completeExceptionally(failure);
                }
            }
        };
        try {
            pool.execute(task);
        } catch (RejectedExecutionException e) {
            task.run(); // only after shutdown, from the closing caller's own thread: never leave a future incomplete
        }
    }

    /**
     * Lets the tasks already given finish, waiting for them up to {@code timeoutNanos}, so that the futures are
     * completed when close returns (unless a dependent stage blocks that long); later tasks run on the caller's thread.
     */
    void shutdown(long timeoutNanos) {
        pool.shutdown();
        try {
            pool.awaitTermination(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
