package dev.counters.internal.service;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.StoreUnavailableException;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DatabaseClock;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A service whose store tells the database's clock does not start without a reading of it: it would stamp appended
 * deltas and purge on its own clock, which may be hours off, and purge what guards another process's retries.
 */
class DatabaseClockAtStartTest {

    @Test
    void aServiceWhoseDatabaseClockCannotBeReadAtStartDoesNotStart() {
        DatabaseClock down = () -> {
            throw new StoreUnavailableException("the database is down", null);
        };
        CounterStore store = new ForwardingCounterStore(new InMemoryCounterStore()) {
            @Override
            public <T> Optional<T> capability(Class<T> capability) {
                return capability == DatabaseClock.class ? Optional.of(capability.cast(down))
                        : super.capability(capability);
            }
        };
        assertThatThrownBy(() -> CounterService.builder(store).build())
                .isInstanceOf(StoreUnavailableException.class).hasMessageContaining("the database is down");
    }
}
