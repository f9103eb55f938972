package dev.counters.internal.strategy.buffered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.BufferFullException;
import dev.counters.CounterName;
import dev.counters.internal.Time;
import dev.counters.strategy.BufferedSettings;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The limit of max-pending-counters, where the flusher's drain meets a caller's admission. */
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
        slots.drainInto(deltas, time.nanoTime()); // before the caller's add
        slots.addTo(A, admitted, 1);

        assertThat(slots.size()).isEqualTo(1);
        assertThatThrownBy(() -> slots.increment(B, 1)).isInstanceOf(BufferFullException.class);
        slots.drainInto(deltas, time.nanoTime());
        assertThat(deltas).containsEntry(A, 1L).doesNotContainKey(B);
    }

    @Test
    void aFullBufferEvictsASlotThatAFormerDrainFoundEmptyAlready() {
        slots.increment(A, 1);
        Map<CounterName, Long> deltas = new HashMap<>();
        slots.drainInto(deltas, time.nanoTime()); // takes the 1
        slots.drainInto(deltas, time.nanoTime()); // empty since the last drain, and the buffer is full: evicted

        slots.increment(B, 1);
        slots.drainInto(deltas, time.nanoTime());
        assertThat(deltas).containsEntry(A, 1L).containsEntry(B, 1L);
    }
}
