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

    /** A thread waiting in {@code join} on a future, seen waiting; what the join returned or threw, once it ends. */
    private record Caller(Thread thread, AtomicReference<Object> outcome) {

        static Caller waitingFor(DurableFuture future) {
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread thread = TestThreads.start(() -> {
                try {
                    future.join();
                    outcome.set("joined");
                } catch (RuntimeException e) {
                    outcome.set(e);
                }
            });
            await().atMost(Duration.ofSeconds(10)).until(() -> thread.getState() == Thread.State.WAITING);
            return new Caller(thread, outcome);
        }

        /** What the join returned ("joined") or threw, waiting 10 s at most for it to end. */
        Object answer() throws InterruptedException {
            thread.join(TimeUnit.SECONDS.toMillis(10));
            return outcome.get();
        }
    }

    @Test
    void aWakeAnswersTheWaitingCallerWhoseThreadRunsTheStagesNotTheWakersThread() throws Exception {
        DurableFuture future = new DurableFuture();
        AtomicReference<Thread> stageRanOn = new AtomicReference<>();
        CompletableFuture<Void> stage = future.thenRun(() -> stageRanOn.set(Thread.currentThread()));
        Caller caller = Caller.waitingFor(future);

        future.wake(null); // as a flusher does: the completions' task is never run here

        assertThat(caller.answer()).isEqualTo("joined");
        assertThat(future).isCompleted();
        assertThat(stage).isCompleted();
        assertThat(stageRanOn).hasValue(caller.thread());
    }

    @Test
    void aWakeWithAFailureFailsTheWaitAsTheCompletionsWould() throws Exception {
        IllegalStateException failure = new IllegalStateException("the flush failed");
        DurableFuture future = new DurableFuture();
        Caller caller = Caller.waitingFor(future);

        future.wake(failure);

        assertThat(caller.answer()).isInstanceOf(CompletionException.class);
        assertThat(((Throwable) caller.answer()).getCause()).isSameAs(failure);
        assertThatThrownBy(future::get).isInstanceOf(ExecutionException.class).hasCause(failure);
        assertThat(future).isCompletedExceptionally();
    }

    @Test
    void theCompletionsAnswerTheCallerTooAndTheFirstToCompleteWins() throws Exception {
        DurableFuture future = new DurableFuture();
        Caller caller = Caller.waitingFor(future);

        future.complete(null); // the completions' task, with no wake before it (a caller of close, say)
        future.wake(new IllegalStateException("too late")); // changes nothing

        assertThat(caller.answer()).isEqualTo("joined");
        assertThat(future.join()).isNull();
    }

    @Test
    void aCancelledFutureEndsTheWait() throws Exception {
        DurableFuture future = new DurableFuture();
        Caller caller = Caller.waitingFor(future);

        future.cancel(false);

        assertThat(caller.answer()).isInstanceOf(CancellationException.class);
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
