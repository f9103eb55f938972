package dev.counters.internal.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.strategy.BoundedSettings;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** An allowance's rate, the size of its refills, and its seal, on a fake ticker. */
class EscrowAllowanceTest {

    private static final BoundedSettings SETTINGS =
            BoundedSettings.of(0L, null).withRefills(Duration.ofMillis(200), 4, 200);

    @Test
    void theRateFollowsTheUnitsASecondAndDecaysWhenIdle() {
        EscrowAllowance.Side side = new EscrowAllowance.Side();
        long now = 0;
        double rate = 0;
        for (int i = 0; i < 1_000; i++) { // 100 units a second for 10 s
            now += 10_000_000;
            rate = side.observe(1, now);
        }
        assertThat(rate).isBetween(95.0, 105.0);
        assertThat(side.observe(1, now + 5_000_000_000L)).as("after 5 s idle").isLessThan(2.0);
    }

    @Test
    void aRefillLastsTheHorizonAndShrinksAsThePoolDrains() {
        EscrowAllowance.Side side = new EscrowAllowance.Side();
        assertThat(side.target(SETTINGS)).as("no rate yet: the least").isEqualTo(4);
        long now = 0;
        for (int i = 0; i < 1_000; i++) {
            now += 10_000_000;
            side.observe(1, now);
        }
        assertThat(side.target(SETTINGS)).as("200 ms at 100 units a second").isBetween(19L, 21L);
        side.poolAfter = 80;
        assertThat(side.target(SETTINGS))
                .as("an eighth of what the pool had left")
                .isEqualTo(10);
        side.poolAfter = 16;
        assertThat(side.target(SETTINGS)).as("never below min-refill").isEqualTo(4);
        for (int i = 0; i < 10_000; i++) {
            now += 10_000;
            side.observe(1, now);
        }
        side.poolAfter = Long.MAX_VALUE;
        assertThat(side.target(SETTINGS)).as("never above max-refill").isEqualTo(200);
    }

    @Test
    void aSealWaitsForTheUsesInFlightWithinItsDeadline() {
        AtomicLong ticker = new AtomicLong();
        EscrowAllowance allowance = new EscrowAllowance(CounterName.of("stock"), 0);
        assertThat(allowance.enter()).isTrue();
        assertThat(allowance.seal(0, ticker::get))
                .as("a write in flight past the deadline")
                .isFalse();
        assertThat(allowance.enter()).as("unsealed again").isTrue();
        allowance.exit();
        allowance.exit();
        assertThat(allowance.seal(0, ticker::get)).isTrue();
        assertThat(allowance.enter()).as("sealed: callers go to the pool").isFalse();
        allowance.unseal();
        assertThat(allowance.enter()).isTrue();
    }

    @Test
    void takesNeverGoBelowZero() {
        EscrowAllowance.Side side = new EscrowAllowance.Side();
        side.local.set(5);
        assertThat(side.tryTake(6)).isFalse();
        assertThat(side.tryTake(5)).isTrue();
        assertThat(side.local.get()).isZero();
        side.local.set(3);
        assertThat(side.takeUpTo(10)).isEqualTo(3);
        assertThat(side.takeUpTo(10)).isZero();
    }
}
