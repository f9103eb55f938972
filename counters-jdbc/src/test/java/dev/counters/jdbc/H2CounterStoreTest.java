package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.contract.CounterStoreContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

class H2CounterStoreTest extends CounterStoreContract {

    H2CounterStoreTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }

    /** The store's own checks, the same on every database: a cost out of its range, a key wider than its column. */
    @Test
    void aRateDecisionWithACostOutsideItsRangeOrAKeyTooLongIsRefusedAndWritesNothing() {
        JooqCounterStore store = JooqStores.shared(TestDatabase.H2).store();
        String api = prefix() + "bad";
        long now = 1_000_000_000L;
        assertThatThrownBy(() -> store.acquire(api, "k", 0, 10, now))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cost must be more than 0 and at most its burst (10 ns), not 0 ns");
        assertThatThrownBy(() -> store.acquire(api, "k", 11, 10, now))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not 11 ns");
        assertThatThrownBy(() -> store.acquire(api, "k".repeat(49), 1, 10, now))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key must be 1 to 48 printable ASCII characters");
        assertThatThrownBy(() -> store.acquire(api, "caf\u00e9", 1, 10, now))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'caf\u00e9'");
        assertThatThrownBy(() -> store.acquire("", "k", 1, 10, now))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("limiter name must be 1 to 48");
        assertThat(store.tat(api, "k".repeat(49)))
                .as("a key no decision could store is absent")
                .isEmpty();
        assertThat(store.delete(api, "caf\u00e9")).isFalse();
        assertThatThrownBy(() -> store.acquire(api, "k", 1, 10, Long.MAX_VALUE - 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("64-bit range");
        assertThat(store.tat(api, "k")).isEmpty();
        assertThat(store.acquire(api, "k".repeat(48), 1, 10, now).admitted()).isTrue();
    }
}
