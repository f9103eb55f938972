package dev.counters.internal.strategy.buffered;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.IdempotentBatches.AppliedBatch;
import dev.counters.strategy.BufferedSettings;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A store that fails a flush with an {@link Error} (here a linkage error, as a driver built against another version of
 * a library throws) after it applied the batch: the lane must live on, retry under the same key, count the batch once
 * and answer its durable callers. A lane that died of it left them waiting for ever.
 */
class BufferedStoreErrorTest {

    @Test
    void aFlushThatFailsWithAnErrorIsRetriedUnderItsKeyAndItsCallersAreAnswered() throws Exception {
        AtomicInteger batches = new AtomicInteger();
        ForwardingCounterStore failingOnce = ForwardingCounterStore.aroundBatches(new InMemoryCounterStore(), apply -> {
            AppliedBatch applied = apply.get();
            if (batches.incrementAndGet() == 1) {
                throw new NoSuchMethodError("simulated: a library of another version");
            }
            return applied;
        });
        try (CounterService counters = CounterService.builder(failingOnce)
                .defaultStrategy(BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1)))
                .build()) {
            counters.incrementDurably("c", 1).get(10, TimeUnit.SECONDS);
            assertThat(batches).hasValueGreaterThanOrEqualTo(2);
            assertThat(counters.get("c")).isEqualTo(1);

            counters.incrementDurably("c", 2).get(10, TimeUnit.SECONDS);
            assertThat(counters.get("c")).isEqualTo(3);
        }
    }
}
