package dev.counters.sequence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.contract.Concurrently;
import dev.counters.internal.Observations;
import dev.counters.internal.Threads;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.Sequences;
import io.github.resilience4j.retry.Retry;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Under contention every reserved block is used: a prefetch never races the refill that replaces its block (such a
 * prefetch came back out of order and was given up, an extra round trip and a gap each time; the multi-process
 * sequence test saw 10 extra round trips in 3,200 once).
 */
class BlockPrefetchTest {

    @Test
    void manyThreadsOnTinyBlocksTakeOneRoundTripPerBlock() {
        AtomicLong reservations = new AtomicLong();
        InMemoryCounterStore memory = new InMemoryCounterStore();
        Sequences counting = (sequence, count, start, increment, max) -> {
            reservations.incrementAndGet();
            return memory.reserve(sequence, count, start, increment, max);
        };
        int block = 4; // tiny blocks make a refill race a prefetch thousands of times
        SequenceSettings settings =
                SequenceSettings.defaults().withBlockSize(block).withMaxBlockSize(block);
        int threads = 16;
        int perThread = 50_000;
        ExecutorService prefetcher = Executors.newSingleThreadExecutor();
        try {
            BlockSequence sequence = new BlockSequence(
                    CounterName.of("ids"),
                    counting,
                    Retry.ofDefaults("test"),
                    settings,
                    prefetcher,
                    System::nanoTime,
                    Observations.NONE);
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    sequence.next();
                }
            });
        } finally {
            Threads.shutdownAndWait(prefetcher);
        }
        long numbers = (long) threads * perThread;
        // One round trip per block, plus the block prefetched when the draws stopped.
        assertThat(reservations.get()).isBetween(numbers / block, numbers / block + 1);
    }
}
