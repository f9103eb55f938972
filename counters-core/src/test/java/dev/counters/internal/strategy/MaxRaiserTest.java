package dev.counters.internal.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Callers that gather while a write of the maximum is in flight share the next one; a failed write covers no one. */
class MaxRaiserTest {

    private final MaxRaiser raiser = new MaxRaiser();
    private final List<Long> writes = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstWriteStarted = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    /** Records each write; the first one waits for {@link #release}, then fails if {@code firstFails}. */
    private LongConsumer write(boolean firstFails) {
        return value -> {
            writes.add(value);
            if (writes.size() == 1) {
                firstWriteStarted.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                if (firstFails) {
                    throw new IllegalStateException("the store is down");
                }
            }
        };
    }

    /** A thread per caller: the common pool may have one thread on a small machine. */
    private final ExecutorService callers = Executors.newFixedThreadPool(4);

    @AfterEach
    void stopCallers() {
        callers.shutdownNow();
    }

    private CompletableFuture<Void> raise(long value, LongConsumer write) {
        return CompletableFuture.runAsync(() -> raiser.raise(value, write), callers);
    }

    @Test
    void callersThatGatherDuringAWriteShareTheNextOne() throws Exception {
        LongConsumer write = write(false);
        CompletableFuture<Void> first = raise(5, write);
        assertThat(firstWriteStarted.await(10, TimeUnit.SECONDS)).isTrue();
        List<CompletableFuture<Void>> gathered = List.of(raise(7, write), raise(9, write), raise(6, write));
        Thread.sleep(300); // the three are waiting for the write in flight
        release.countDown();
        first.get(10, TimeUnit.SECONDS);
        CompletableFuture.allOf(gathered.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
        assertThat(writes)
                .as("one write for the first, one of the largest for the three")
                .containsExactly(5L, 9L);
    }

    @Test
    void aFailedWriteCoversNoOneAndTheWaitersWriteThemselves() throws Exception {
        LongConsumer write = write(true);
        CompletableFuture<Void> first = raise(5, write);
        assertThat(firstWriteStarted.await(10, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> waiting = raise(8, write);
        Thread.sleep(300);
        release.countDown();
        assertThatThrownBy(() -> first.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseMessage("the store is down");
        waiting.get(10, TimeUnit.SECONDS);
        assertThat(writes).containsExactly(5L, 8L);
    }
}
