package dev.counters.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.StoreUnavailableException;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DatabaseClock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A service whose store tells the database's clock does not start without a reading of it: it would stamp appended
 * deltas and purge on its own clock, which may be hours off, and purge what guards another process's retries.
 */
class DatabaseClockAtStartTest {

    @Test
    void aServiceWhoseDatabaseClockCannotBeReadAtStartDoesNotStart() {
        AtomicInteger readings = new AtomicInteger();
        DatabaseClock down = () -> {
            readings.incrementAndGet();
            throw new StoreUnavailableException("the database is down", null);
        };
        assertThatThrownBy(() -> CounterService.builder(storeWith(down)).build())
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("the database is down");
        assertThat(readings)
                .as("tried again, a bounded number of times")
                .hasValue(Housekeeping.CLOCK_ATTEMPTS_AT_START);
    }

    @Test
    void aBlipAtStartIsReadThrough() {
        AtomicInteger readings = new AtomicInteger();
        DatabaseClock blinking = () -> {
            if (readings.incrementAndGet() == 1) {
                throw new StoreUnavailableException("a blip", null);
            }
            return Instant.now();
        };
        try (CounterService counters =
                CounterService.builder(storeWith(blinking)).build()) {
            counters.increment("started");
            assertThat(counters.get("started")).isEqualTo(1);
        }
    }

    private static CounterStore storeWith(DatabaseClock clock) {
        return new ForwardingCounterStore(new InMemoryCounterStore()) {
            @Override
            public <T> Optional<T> capability(Class<T> capability) {
                return capability == DatabaseClock.class
                        ? Optional.of(capability.cast(clock))
                        : super.capability(capability);
            }
        };
    }
}
