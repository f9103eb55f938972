package dev.counters.internal.strategy.buffered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.BufferFullException;
import dev.counters.CounterName;
import dev.counters.internal.Time;
import dev.counters.strategy.BufferedSettings;
import dev.counters.testing.TestThreads;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Where the flusher's drain meets a caller: the limit of max-pending-counters, an add to a slot evicted meanwhile, the
 * count of increments.
 */
class SlotsTest {

    private static final CounterName A = CounterName.of("a");
    private static final CounterName B = CounterName.of("b");

    private final BufferedSettings settings = BufferedSettings.defaults()
            .withMaxPendingCounters(1)
            .withWhenFull(BufferedSettings.WhenFull.FAIL, Duration.ofMillis(1));
    private final CloseGate gate = new CloseGate();
    private final Time time = Time.of(Clock.systemUTC());
    private final Slots slots =
            new Slots(settings, gate, new Room(settings, time, gate, new FlushStats(time), Thread.currentThread()));

    /**
     * A drain that comes between a slot's admission and its caller's add finds it empty. Evicting it then, because the
     * buffer is full, would admit the next counter past the limit (the add still lands, in the evicted slot).
     */
    @Test
    void aSlotAdmittedJustBeforeADrainKeepsItsPlaceInAFullBuffer() {
        Slot admitted = slots.lookUp(A);
        Map<CounterName, Long> deltas = new HashMap<>();
        slots.drainInto(deltas); // before the caller's add
        slots.addTo(A, admitted, 1);

        assertThat(slots.size()).isEqualTo(1);
        assertThatThrownBy(() -> slots.increment(B, 1)).isInstanceOf(BufferFullException.class);
        slots.drainInto(deltas);
        assertThat(deltas).containsEntry(A, 1L).doesNotContainKey(B);
    }

    @Test
    void aFullBufferEvictsASlotThatAFormerDrainFoundEmptyAlready() {
        slots.increment(A, 1);
        Map<CounterName, Long> deltas = new HashMap<>();
        slots.drainInto(deltas); // takes the 1
        slots.drainInto(deltas); // empty since the last drain, and the buffer is full: evicted

        slots.increment(B, 1);
        slots.drainInto(deltas);
        assertThat(deltas).containsEntry(A, 1L).containsEntry(B, 1L);
    }

    /**
     * A caller that looked a slot up before two idle drains evicted it adds a moment later. Its increment is counted,
     * read by a get and written, at once: not left in an evicted slot until some later drain.
     */
    @Test
    void anAddToASlotEvictedMeanwhileIsReadAndCountedAtOnce() {
        Slots roomy = roomy();
        roomy.increment(A, 1);
        Slot held = roomy.lookUp(A);
        Map<CounterName, Long> deltas = new HashMap<>();
        roomy.drainInto(deltas); // takes the 1
        roomy.drainInto(deltas); // idle once
        roomy.drainInto(deltas); // idle twice: evicted
        assertThat(roomy.size()).isZero();

        roomy.addTo(A, held, 1);
        roomy.addTo(A, held, 5);

        assertThat(roomy.pending(A)).isEqualTo(6);
        assertThat(roomy.acceptedIncrements()).isEqualTo(3);
        Map<CounterName, Long> next = new HashMap<>();
        roomy.drainInto(next);
        assertThat(next).containsEntry(A, 6L);
    }

    /**
     * The count of increments of 1 never misses one on its way out of a slot, and never counts one twice, even while
     * moves out of the slots come back to back (here two drainers that never pause).
     */
    @Test
    void theCountOfIncrementsIsExactWhileDrainsMoveThem() throws Exception {
        Slots roomy = roomy();
        Runnable drainAll = () -> {
            Map<CounterName, Long> deltas = new HashMap<>();
            while (!Thread.currentThread().isInterrupted()) {
                roomy.drainInto(deltas);
            }
        };
        Thread first = TestThreads.start(drainAll);
        Thread second = TestThreads.start(drainAll);
        try {
            long added = 0;
            for (int round = 0; round < 2_000; round++) {
                for (int i = 0; i < 50; i++) {
                    roomy.increment(i % 2 == 0 ? A : B, 1);
                    added++;
                }
                assertThat(roomy.acceptedIncrements())
                        .as("after %d increments", added)
                        .isEqualTo(added);
            }
        } finally {
            first.interrupt();
            second.interrupt();
            first.join(10_000);
            second.join(10_000);
        }
    }

    /** Slots with room for many counters. */
    private Slots roomy() {
        return new Slots(
                BufferedSettings.defaults(),
                gate,
                new Room(settings, time, gate, new FlushStats(time), Thread.currentThread()));
    }
}
