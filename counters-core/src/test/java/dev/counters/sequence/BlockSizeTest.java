package dev.counters.sequence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.internal.Observations;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.Sequences;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Blocks grow while they go fast, up to the largest size, and are small again once the draws slow down. */
class BlockSizeTest {

    private final List<Long> requested = new ArrayList<>();
    private final AtomicLong ticker = new AtomicLong();
    private final InMemoryCounterStore memory = new InMemoryCounterStore();
    private final Sequences recording = new Sequences() {
        @Override
        public Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue) {
            requested.add(count);
            return memory.reserve(sequence, count, start, increment, maxValue);
        }
    };

    @Test
    void blocksDoubleWhileTheyGoFastAndFallBackWhenTheDrawsSlowDown() {
        SequenceSettings settings =
                SequenceSettings.defaults().withBlockSize(10).withMaxBlockSize(80);
        BlockSequence sequence = new BlockSequence(
                CounterName.of("ids"),
                recording,
                Retry.ofDefaults("test"),
                settings,
                Runnable::run,
                ticker::get,
                Observations.NONE);
        long last = 0;
        for (int i = 0; i < 300; i++) {
            long next = sequence.next();
            assertThat(next).isGreaterThan(last);
            last = next;
        }
        assertThat(requested).startsWith(10L, 20L, 40L, 80L, 80L);
        assertThat(requested).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(80));

        requested.clear();
        for (int i = 0; i < 200; i++) { // the rate drops to a number a second: half a block takes over 10 s
            ticker.addAndGet(Duration.ofSeconds(1).toNanos());
            long next = sequence.next();
            assertThat(next).isGreaterThan(last);
            last = next;
        }
        assertThat(requested.get(0)).as("once the draws slowed down").isEqualTo(10L);
    }

    @Test
    void aSequenceDrawnSlowlyKeepsItsConfiguredBlockSize() {
        SequenceSettings settings = SequenceSettings.defaults().withBlockSize(10);
        BlockSequence sequence = new BlockSequence(
                CounterName.of("slow"),
                recording,
                Retry.ofDefaults("test"),
                settings,
                Runnable::run,
                ticker::get,
                Observations.NONE);
        for (int i = 0; i < 100; i++) {
            sequence.next();
            ticker.addAndGet(Duration.ofMillis(50).toNanos()); // half a block of 10 takes 250 ms
        }
        assertThat(requested).hasSizeGreaterThan(5).containsOnly(10L);
    }
}
