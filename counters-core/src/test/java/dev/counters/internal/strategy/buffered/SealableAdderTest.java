package dev.counters.internal.strategy.buffered;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.testing.TestThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/** A sealed adder holds exactly the adds that returned true, however many threads raced the seal. */
class SealableAdderTest {

    @Test
    void everyAddBeforeTheSealIsInTheSumAndNoneAfterIt() throws Exception {
        for (int round = 0; round < 50; round++) {
            SealableAdder adder = new SealableAdder();
            LongAdder accepted = new LongAdder();
            LongAdder taken = new LongAdder();
            CountDownLatch started = new CountDownLatch(8);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                long delta = t % 2 == 0 ? 1 : 3;
                threads.add(TestThreads.start(() -> {
                    started.countDown();
                    while (adder.add(delta)) {
                        accepted.add(delta);
                    }
                }));
            }
            started.await();
            for (int i = 0; i < 20; i++) {
                taken.add(adder.sumThenReset()); // the flusher's takes, racing the adds
            }
            adder.seal();
            for (Thread thread : threads) {
                thread.join();
            }
            assertThat(adder.add(1)).isFalse();
            assertThat(taken.sum() + adder.sum()).as("round %d", round).isEqualTo(accepted.sum());
            taken.add(adder.sumThenReset());
            assertThat(adder.sum()).isZero();
            assertThat(adder.add(1)).as("still sealed after a take").isFalse();
            assertThat(taken.sum()).isEqualTo(accepted.sum());
        }
    }
}
