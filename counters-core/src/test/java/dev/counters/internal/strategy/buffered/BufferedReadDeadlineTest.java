package dev.counters.internal.strategy.buffered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.CounterService;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.BufferedSettings;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 1: a read must not hang as long as a flush hangs in the store. Issue 38: a read no longer waits for a
 * flush at all; it adds the batch in flight unless the store's snapshot holds its key, so it answers at once, and
 * once the flush is applied it counts the batch once.
 */
class BufferedReadDeadlineTest {

    @Test
    void aReadDuringAFlushThatDoesNotReturnIsAnsweredAtOnceAndCountsTheBatchOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger batches = new AtomicInteger();
        ForwardingCounterStore hanging = ForwardingCounterStore.aroundBatches(new InMemoryCounterStore(), apply -> {
            batches.incrementAndGet();
            try {
                release.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return apply.get();
        });
        try (CounterService counters = CounterService.builder(hanging)
                .defaultStrategy(BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1)))
                .build()) {
            try {
                CompletableFuture<Void> durable = counters.incrementDurably("held", 1);
                await().atMost(Duration.ofSeconds(10)).until(() -> batches.get() == 1);
                long started = System.nanoTime();
                CompletableFuture<Long> read = CompletableFuture.supplyAsync(() -> counters.get("held"));
                assertThat(read.get(20, TimeUnit.SECONDS)).isEqualTo(1);
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
                assertThat(durable).isNotDone();
                release.countDown();
                durable.get(10, TimeUnit.SECONDS);
                assertThat(counters.get("held")).isEqualTo(1);
            } finally {
                release.countDown();
            }
        }
    }
}
