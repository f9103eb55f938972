package dev.counters.internal.strategy.buffered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.testing.TestThreads;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A durable call's future: a flusher's wake answers the callers that wait, and runs none of the dependent stages,
 * which run on a caller's thread or the completions'.
 */
class DurableFutureTest {

    /** A thread waiting in {@code join} on {@code future}, which it records its outcome into. */
    private static Thread joining(DurableFuture future, AtomicReference<Object> outcome) {
        return TestThreads.start(() -> {
            try {
                future.join();
                outcome.set("joined");
            } catch (RuntimeException e) {
                outcome.set(e);
            }
        });
    }

    private static void awaitWaiting(Thread thread) {
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        thread.getState() == Thread.State.WAITING || thread.getState() == Thread.State.TIMED_WAITING);
    }

    @Test
    void aWakeAnswersTheWaitingCallerWhoseThreadRunsTheStagesNotTheWakersThread() throws Exception {
        DurableFuture future = new DurableFuture();
        AtomicReference<Thread> stageRanOn = new AtomicReference<>();
        CompletableFuture<Void> stage = future.thenRun(() -> stageRanOn.set(Thread.currentThread()));
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = joining(future, outcome);
        awaitWaiting(caller);

        future.wake(null); // as a flusher does: the completions' task is never run here

        caller.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(outcome).hasValue("joined");
        assertThat(future).isCompleted();
        assertThat(stage).isCompleted();
        assertThat(stageRanOn).hasValue(caller);
    }

    @Test
    void aWakeWithAFailureFailsTheWaitAsTheCompletionsWould() throws Exception {
        IllegalStateException failure = new IllegalStateException("the flush failed");
        DurableFuture future = new DurableFuture();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = joining(future, outcome);
        awaitWaiting(caller);

        future.wake(failure);

        caller.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(outcome.get()).isInstanceOf(CompletionException.class);
        assertThat(((Throwable) outcome.get()).getCause()).isSameAs(failure);
        assertThatThrownBy(future::get).isInstanceOf(ExecutionException.class).hasCause(failure);
        assertThat(future).isCompletedExceptionally();
    }

    @Test
    void theCompletionsAnswerTheCallerTooAndTheFirstToCompleteWins() throws Exception {
        DurableFuture future = new DurableFuture();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = joining(future, outcome);
        awaitWaiting(caller);

        future.complete(null); // the completions' task, with no wake before it (a caller of close, say)
        future.wake(new IllegalStateException("too late")); // changes nothing

        caller.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(outcome).hasValue("joined");
        assertThat(future.join()).isNull();
    }

    @Test
    void aCancelledFutureEndsTheWait() throws Exception {
        DurableFuture future = new DurableFuture();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = joining(future, outcome);
        awaitWaiting(caller);

        future.cancel(false);

        caller.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(outcome.get()).isInstanceOf(CancellationException.class);
    }

    @Test
    void aTimedGetTimesOutUntilWokenAndGetNowAnswersOnceWoken() throws Exception {
        DurableFuture future = new DurableFuture();
        assertThatThrownBy(() -> future.get(10, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        assertThat(future.getNow(null)).isNull();
        assertThat(future).isNotDone();

        future.wake(null);

        assertThat(future).isNotDone(); // until a caller or the completions complete it
        assertThat(future.getNow(null)).isNull();
        assertThat(future).isCompleted();
        assertThat(future.get(10, TimeUnit.MILLISECONDS)).isNull();
    }
}
