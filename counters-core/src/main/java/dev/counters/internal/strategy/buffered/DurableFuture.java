package dev.counters.internal.strategy.buffered;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The future of a durable call ({@code incrementDurably}, {@code flush}). Completing a future runs its dependent stages
 * on the completing thread, so a flusher never completes it: {@link Completions} does, on a thread of its own. A caller
 * that only waits ({@code join}, {@code get}) need not wait for that hand-over too, which on a busy machine costs a
 * thread's wake-up, as long as a commit: the flusher wakes it at once ({@link #wake}), and it completes its own future,
 * running the stages on its own thread. Whichever of the caller and the completions completes it first runs them.
 */
final class DurableFuture extends CompletableFuture<Void> {

    /**
     * The outcome once the flusher knows it (empty: written; else the failure), or empty once this future completed
     * another way (then it is done, and the outcome is its own). Private: nothing but the waits depends on it.
     */
    private final CompletableFuture<Optional<Throwable>> woken = new CompletableFuture<>();

    DurableFuture() {
        super.whenComplete((done, failure) -> woken.complete(Optional.empty())); // cancelled, say: the waits end too
    }

    /** Wakes the callers waiting in {@code join} or {@code get}, and runs nothing else: for a flusher. */
    void wake(@Nullable Throwable failure) {
        woken.complete(Optional.ofNullable(failure));
    }

    /** Completes this future with the outcome it was woken with, unless it is done; on the caller's thread. */
    private void completeAsWoken() {
        woken.join().ifPresentOrElse(this::completeExceptionally, () -> complete(null));
    }

    @Override
    public Void join() {
        woken.join();
        completeAsWoken();
        return super.join();
    }

    @Override
    public Void get() throws InterruptedException, ExecutionException {
        woken.get();
        completeAsWoken();
        return super.get();
    }

    @Override
    public Void get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        woken.get(timeout, unit);
        completeAsWoken();
        return super.get();
    }

    @Override
    public Void getNow(Void valueIfAbsent) {
        if (woken.isDone()) {
            completeAsWoken();
        }
        return super.getNow(valueIfAbsent);
    }
}
