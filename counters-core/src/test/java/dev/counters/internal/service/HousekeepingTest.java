package dev.counters.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.IdempotencyKey;
import dev.counters.contract.MutableClock;
import dev.counters.internal.Time;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.Escrow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Idempotency keys are forgotten after their retention, by one process at a time, a bounded batch per delete. */
class HousekeepingTest {

    private final InMemoryCounterStore store = new InMemoryCounterStore();
    private final MutableClock clock = new MutableClock();
    private final AtomicLong ticker = new AtomicLong();
    private final Time time = new Time(clock, ticker::get);
    private final CounterName counter = CounterName.of("keyed");

    private boolean applied(String key) {
        return store.applyOnce(key, counter, 1, time.steady(), transaction -> {
                    transaction.add(counter, "main", 1);
                    return OptionalLong.empty();
                })
                .appliedNow();
    }

    private void advance(Duration duration) {
        clock.advance(duration);
        ticker.addAndGet(duration.toNanos());
    }

    @Test
    void keysAreForgottenAfterTheirRetentionAndNotBefore() {
        Housekeeping housekeeping = Housekeeping.manual(store, time, "owner-a", Duration.ofHours(1), List.of());
        for (int i = 0; i < Housekeeping.BATCH + 5; i++) {
            applied("old-" + i);
        }
        advance(Duration.ofMinutes(30));
        applied("young");
        assertThat(housekeeping.runOnce()).as("nothing past the retention yet").isZero();
        assertThat(applied("old-0")).as("remembered within the retention").isFalse();

        advance(Duration.ofMinutes(31));
        assertThat(housekeeping.runOnce())
                .as("every old key, in more than one batch")
                .isEqualTo(Housekeeping.BATCH + 5);
        assertThat(applied("young")).as("kept: still within its retention").isFalse();
        assertThat(applied("old-0")).as("forgotten, so it counts again").isTrue();
    }

    @Test
    void settledOperationsOfBoundedCountersAreForgottenAfterTheRetentionButOpenHoldsAreKept() {
        Housekeeping housekeeping = Housekeeping.manual(store, time, "owner-a", Duration.ofHours(1), List.of());
        CounterName stock = CounterName.of("stock");
        store.bind(stock, new Escrow.Bounds(0L, null), 10, Escrow.NODE_PREFIX + "a", time.steady());
        assertThat(store.applyKeyed("sold", stock, -1, null, Escrow.POOL, -1, 1, false, time.steady()))
                .isPresent();
        Instant expiry = time.steady().plus(Duration.ofDays(1));
        assertThat(store.applyKeyed("held", stock, -1, expiry, Escrow.POOL, -1, 0, false, time.steady()))
                .isPresent();
        advance(Duration.ofMinutes(61));
        assertThat(housekeeping.runOnce()).as("the applied change only").isEqualTo(1);
        assertThat(store.operation("sold")).isEmpty();
        assertThat(store.operation("held"))
                .as("an open hold is never forgotten")
                .isPresent();
    }

    @Test
    void oneProcessAtATimeHoldsTheLease() {
        Housekeeping mine = Housekeeping.manual(store, time, "owner-a", Duration.ofHours(1), List.of());
        Housekeeping theirs = Housekeeping.manual(store, time, "owner-b", Duration.ofHours(1), List.of());
        Instant now = time.now();
        store.tryLease(Housekeeping.LEASE, "owner-b", now.plusSeconds(60), now);
        assertThat(mine.runOnce()).as("the other process is at work").isEqualTo(-1);
        store.releaseLease(Housekeeping.LEASE, "owner-b");
        assertThat(mine.runOnce()).isZero();
        assertThat(theirs.runOnce()).as("the lease was released after the run").isZero();
    }

    @Test
    void aServiceStartsNoHousekeepingThreadUntilAKeyIsUsed() {
        AtomicLong threads = new AtomicLong();
        try (CounterService counters = CounterService.builder(store)
                .threadFactory(task -> {
                    threads.incrementAndGet();
                    return new Thread(task);
                })
                .build()) {
            counters.increment("plain");
            assertThat(threads).hasValue(0);
            counters.increment("keyed", 1, IdempotencyKey.of("k-1"));
            counters.increment("keyed", 1, IdempotencyKey.of("k-2"));
            assertThat(threads).hasValue(1);
        }
    }

    /** A run that fails with an {@link Error} must not end the upkeep: a scheduled task that throws is not run again. */
    @Test
    void aRunThatFailsWithAnErrorIsFollowedByTheNextRun() {
        AtomicLong runs = new AtomicLong();
        Housekeeping.Task failingFirst = horizon -> {
            if (runs.incrementAndGet() == 1) {
                throw new NoSuchMethodError("simulated: a library of another version");
            }
            return 0;
        };
        try (Housekeeping housekeeping = Housekeeping.of(
                store,
                Time.of(Clock.systemUTC()),
                "owner-a",
                Duration.ofSeconds(10),
                List.of(failingFirst),
                Thread::new)) {
            housekeeping.start(); // every second
            await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(runs).hasValueGreaterThan(1));
        }
    }
}
