package dev.counters.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.WindowSettings;
import dev.counters.contract.MutableClock;
import dev.counters.internal.NameRules;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Counters nobody writes for their rule's idle time are removed; written ones, others' and windows are not. */
class IdleExpiryTest {

    private final InMemoryCounterStore store = new InMemoryCounterStore();
    private final MutableClock clock = new MutableClock();
    private Instant horizon = Instant.parse("2026-01-01T00:00:00Z");

    private IdleExpiry expiry(CounterService counters, Map<String, Duration> rules) {
        Route route = ((Handle) counters.counter("x")).route();
        return new IdleExpiry(
                store,
                store,
                NameRules.of(Map.of(), route),
                NameRules.of(
                        Map.of("carts.windowed", Optional.of(new Windows(WindowSettings.of(Duration.ofHours(1))))),
                        Optional.empty()),
                rules);
    }

    private int runAfter(IdleExpiry expiry, Duration passed) {
        horizon = horizon.plus(passed);
        return expiry.run(horizon);
    }

    @Test
    void aCounterIdleForItsTimeIsRemovedAndReadsZeroWhileAWrittenOneStays() {
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(ShardedSettings.defaults())
                .windows("carts.windowed", WindowSettings.of(Duration.ofHours(1)))
                .clock(clock)
                .build()) {
            counters.increment("carts.idle", 3);
            counters.increment("carts.busy", 3);
            counters.increment("carts.windowed", 3);
            counters.increment("orders.kept", 3);
            IdleExpiry expiry = expiry(counters, Map.of("carts.*", Duration.ofMinutes(30)));

            assertThat(runAfter(expiry, Duration.ZERO))
                    .as("first look: versions noted")
                    .isZero();
            assertThat(runAfter(expiry, Duration.ofMinutes(20))).isZero();
            counters.increment("carts.busy", 1);
            assertThat(runAfter(expiry, Duration.ofMinutes(11)))
                    .as("carts.idle: 31 minutes unchanged")
                    .isEqualTo(1);
            assertThat(counters.get("carts.idle"))
                    .as("an expired counter reads 0")
                    .isZero();
            assertThat(counters.get("carts.busy")).isEqualTo(4);
            assertThat(runAfter(expiry, Duration.ofMinutes(29)))
                    .as("carts.busy: 29 minutes since its write")
                    .isZero();
            assertThat(runAfter(expiry, Duration.ofMinutes(2))).isEqualTo(1);
            assertThat(counters.get("carts.busy")).isZero();
            assertThat(counters.windowed("carts.windowed").current())
                    .as("windows go by their retention")
                    .isEqualTo(3);
            assertThat(counters.get("orders.kept")).as("no rule expires it").isEqualTo(3);

            counters.increment("carts.idle", 2);
            assertThat(counters.get("carts.idle")).as("counts again from 0").isEqualTo(2);
        }
    }

    @Test
    void monotonicCountersCannotExpireAndTheIdleTimeIsChecked() {
        assertThatThrownBy(() -> CounterService.builder(store)
                        .strategy("ids.*", MonotonicSettings.defaults())
                        .expireAfterIdle("ids.*", Duration.ofHours(1))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("monotonic");
        assertThatThrownBy(() -> CounterService.builder(store).expireAfterIdle("a", Duration.ofSeconds(5)))
                .hasMessageContaining("at least 1 minute");
    }

    @Test
    @SuppressWarnings("try") // the service is only built and closed
    void aServiceWithAnExpiryStartsItsHousekeepingAtOnce() {
        java.util.concurrent.atomic.AtomicInteger threads = new java.util.concurrent.atomic.AtomicInteger();
        try (CounterService counters = CounterService.builder(store)
                .expireAfterIdle("carts.*", Duration.ofMinutes(1))
                .threadFactory(task -> {
                    threads.incrementAndGet();
                    return new Thread(task);
                })
                .build()) {
            assertThat(threads).as("the housekeeping thread").hasValue(1);
        }
    }
}
