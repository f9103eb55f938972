package dev.counters.internal.strategy.buffered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterName;
import dev.counters.internal.Observations;
import dev.counters.internal.Threads;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.BufferedSettings;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import java.lang.reflect.Field;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * A buffered counter's handle keeps its slot, so that an increment through it skips the lookup; once the slot has
 * left the buffer (idle, or the counter deleted) the handle looks the counter up again, and nothing it adds is lost.
 */
class BufferedHandleTest {

    private final AtomicLong ticker = new AtomicLong();
    private final InMemoryCounterStore store = new InMemoryCounterStore();
    private final CounterName name = CounterName.of("held");

    private final StrategyContext context = new StrategyContext(
            store,
            new Time(Clock.systemUTC(), ticker::get),
            new SplittableRandom(1),
            UniqueIds.create(),
            Threads.daemon("test-"),
            RetryRegistry.ofDefaults(),
            CircuitBreakerRegistry.ofDefaults(),
            Observations.NONE,
            "default",
            "buffered");
    private final BufferedSettings hourly = BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1));

    @Test
    @SuppressWarnings("try") // closes the buffer inside the block, to see what a held handle does after
    void aHeldHandleCountsAfterItsSlotLeftTheBufferAndAfterADelete() throws Exception {
        try (CounterStrategy buffered = new BufferedStrategy(context, hourly)) {
            LongConsumer handle = buffered.incrementer(name);
            handle.accept(1);
            for (int i = 0; i < 3; i++) { // two idle flushes retire the slot the handle holds
                buffered.flush().get(30, TimeUnit.SECONDS);
            }
            ticker.addAndGet(Duration.ofMinutes(2).toNanos()); // past the time a retired slot is still drained
            buffered.flush().get(30, TimeUnit.SECONDS);
            handle.accept(2);
            buffered.flush().get(30, TimeUnit.SECONDS);
            assertThat(store.get(name)).isEqualTo(3);

            buffered.delete(name);
            handle.accept(4);
            buffered.flush().get(30, TimeUnit.SECONDS);
            assertThat(store.get(name)).as("counted after the delete").isEqualTo(4);

            handle.accept(1);
            buffered.close();
            assertThat(store.get(name)).as("written by closing").isEqualTo(5);
            assertThatThrownBy(() -> handle.accept(1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed")
                    .hasMessageContaining("'held' was not incremented");
            assertThat(store.get(name)).isEqualTo(5);
        }
    }

    /**
     * A caller that saw its slot live, then stalled until the slot was retired and its last drain was over, adds to a
     * slot nobody drains any more: the last drain seals it, so the add goes to the counter's current slot instead.
     */
    @Test
    void aHandleThatSawItsSlotLiveJustBeforeItsLastDrainStillCounts() throws Exception {
        try (CounterStrategy buffered = new BufferedStrategy(context, hourly)) {
            LongConsumer handle = buffered.incrementer(name);
            handle.accept(1);
            Object slot = slotOf(buffered);
            for (int i = 0; i < 3; i++) { // two idle flushes retire the slot
                buffered.flush().get(30, TimeUnit.SECONDS);
            }
            ticker.addAndGet(Duration.ofMinutes(2).toNanos());
            buffered.flush().get(30, TimeUnit.SECONDS); // the retired slot's last drain
            // The stale read of a caller that checked the slot just before it was retired.
            Field retired = slot.getClass().getDeclaredField("retired");
            retired.setAccessible(true);
            retired.setBoolean(slot, false);

            handle.accept(2);
            buffered.flush().get(30, TimeUnit.SECONDS);
            assertThat(store.get(name))
                    .as("the add after the retired slot's last drain is written")
                    .isEqualTo(3);
        }
    }

    private Object slotOf(CounterStrategy buffered) throws ReflectiveOperationException {
        Field slots = BufferedStrategy.class.getDeclaredField("slots");
        slots.setAccessible(true);
        Field byName = Slots.class.getDeclaredField("byName");
        byName.setAccessible(true);
        return ((Map<?, ?>) byName.get(slots.get(buffered))).get(name);
    }
}
