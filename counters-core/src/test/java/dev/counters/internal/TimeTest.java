package dev.counters.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.contract.MutableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TimeTest {

    private final MutableClock clock = new MutableClock();
    private final AtomicLong ticker = new AtomicLong();
    private final Time time = new Time(clock, ticker::get);

    @Test
    void elapsedTimeCountsOnlyTheClocksForwardMovesAndResumesRightAfterAStepBack() {
        clock.advance(Duration.ofSeconds(2));
        assertThat(time.elapsedNanos()).isEqualTo(Duration.ofSeconds(2).toNanos());
        clock.advance(Duration.ofHours(-1));
        assertThat(time.elapsedNanos())
                .as("a step back adds nothing")
                .isEqualTo(Duration.ofSeconds(2).toNanos());
        clock.advance(Duration.ofMillis(1_100));
        assertThat(time.elapsedNanos())
                .as("and the next forward move counts at once")
                .isEqualTo(Duration.ofMillis(3_100).toNanos());
    }

    @Test
    void steadyTimeFollowsTheTickerFromTheClockAtStart() {
        var start = clock.instant();
        clock.advance(Duration.ofDays(-3));
        ticker.addAndGet(Duration.ofSeconds(5).toNanos());
        assertThat(time.steady()).isEqualTo(start.plusSeconds(5));
        assertThat(time.now()).isEqualTo(start.minus(Duration.ofDays(3)));
    }

    @Test
    void steadyTimeFollowsTheDatabasesClockFromEachReadingWhateverTheWallClockSays() {
        var database = new java.util.concurrent.atomic.AtomicReference<>(
                clock.instant().minus(Duration.ofHours(2)));
        Time onDatabase = new Time(clock, ticker::get, database::get);
        assertThat(onDatabase.hasDatabaseClock()).isTrue();
        assertThat(onDatabase.synchronize()).as("the wall clock is 2 h ahead").hasValue(Duration.ofHours(2));
        ticker.addAndGet(Duration.ofSeconds(5).toNanos());
        assertThat(onDatabase.steady()).isEqualTo(database.get().plusSeconds(5));
        clock.advance(Duration.ofHours(-2)); // NTP corrects the wall clock: steady time did not follow its error
        database.set(database.get().plusSeconds(7));
        assertThat(onDatabase.synchronize()).hasValue(Duration.ofSeconds(-7));
        assertThat(onDatabase.steady()).isEqualTo(database.get());
        assertThat(time.synchronize()).as("no database clock").isEmpty();
        var slowReadings = new java.util.concurrent.atomic.AtomicInteger();
        Time slowDatabase = new Time(clock, ticker::get, () -> {
            ticker.addAndGet(Duration.ofSeconds(3).toNanos()); // a reading that took 3 s could be 1.5 s off
            return database.get().plus(Duration.ofHours(slowReadings.incrementAndGet()));
        });
        slowDatabase.synchronize();
        assertThat(slowDatabase.steady())
                .as("the first reading is used, slow as it was: the wall clock is further off")
                .isEqualTo(database.get().plus(Duration.ofHours(1)).plusMillis(1_500));
        var before = slowDatabase.steady();
        slowDatabase.synchronize();
        assertThat(slowDatabase.steady()).as("a later slow one is not").isEqualTo(before.plusSeconds(3));
    }
}
