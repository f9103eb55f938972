package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.WindowSettings;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.contract.ShiftedClock;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DeltaLog;
import dev.counters.strategy.DeltaLogSettings;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 31, item 6: purges go by the database's clock, not by a JVM's. A JVM whose clock was wrong when it started,
 * or is off from another's, must not purge what another process still counts on: current windows, and the folded
 * deltas that recognise a retried append.
 */
class DatabaseClockTest {

    private static final DateTimeFormatter WINDOW_START =
            DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    /** Housekeeping every 6 s: a tenth of the shortest key retention. */
    private static final Duration FREQUENT_UPKEEP = Duration.ofMinutes(1);

    /** The stored name of a counter's window that ended hours ago, by the real clock: due for the purge. */
    private static String oldWindow(String counter, Duration windowSize) {
        Instant start = Instant.now().minus(Duration.ofHours(3)).truncatedTo(ChronoUnit.HOURS);
        return counter + ":w:" + WINDOW_START.format(start);
    }

    private static long windowsTotal(CounterService counters, String counter) {
        Instant now = Instant.now();
        return counters
                .windowed(counter)
                .series(now.minus(Duration.ofMinutes(30)), now.plus(Duration.ofMinutes(30)))
                .stream()
                .mapToLong(window -> window.value())
                .sum();
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"H2", "MARIADB"})
    void aServiceStartedWithItsClockTwoHoursFastThenCorrectedPurgesNoCurrentWindow(TestDatabase database) {
        ShiftedClock clock = new ShiftedClock(Duration.ofHours(2));
        String counter = "fast-" + System.nanoTime();
        WindowSettings minutes = WindowSettings.of(Duration.ofMinutes(1)); // kept for an hour
        try (CounterService counters = CounterService.builder(
                        JooqStores.shared(database).store())
                .clock(clock)
                .windows(counter, minutes)
                .keyRetention(FREQUENT_UPKEEP)
                .build()) {
            clock.shift(Duration.ZERO); // NTP corrects the clock
            counters.increment(counter, 5);
            String old = oldWindow(counter, minutes.size());
            counters.increment(old, 1);
            // The purge ran once the window due by the real clock is gone...
            await().atMost(Duration.ofSeconds(30)).until(() -> counters.get(old) == 0);
            // ...and it left the current one, which an acknowledged increment wrote.
            assertThat(windowsTotal(counters, counter)).isEqualTo(5);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"H2", "MARIADB"})
    void servicesWhoseClocksDifferByMoreThanAWindowsRetentionKeepEveryAcknowledgedWindowedCount(TestDatabase database)
            throws InterruptedException {
        JooqStores stores = JooqStores.shared(database);
        String counter = "skewed-" + System.nanoTime();
        WindowSettings seconds = WindowSettings.of(Duration.ofSeconds(1)); // kept for a minute
        long acknowledged = 0;
        // The one that does the housekeeping runs 3 minutes ahead; the other, on time, leaves it the upkeep.
        try (CounterService ahead = CounterService.builder(stores.store())
                        .clock(new ShiftedClock(Duration.ofMinutes(3)))
                        .windows(counter, seconds)
                        .keyRetention(FREQUENT_UPKEEP)
                        .build();
                CounterService onTime = CounterService.builder(stores.anotherStore())
                        .windows(counter, seconds)
                        .keyRetention(Duration.ofDays(7))
                        .build()) {
            String old = oldWindow(counter, seconds.size());
            ahead.increment(old, 1);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            long purgedAt = 0;
            // Count on both until a purge ran, and for a second after it.
            while (System.nanoTime() < deadline && (purgedAt == 0 || System.nanoTime() - purgedAt < 1_000_000_000L)) {
                onTime.increment(counter, 2);
                ahead.increment(counter, 1);
                acknowledged += 3;
                if (purgedAt == 0 && onTime.get(old) == 0) {
                    purgedAt = System.nanoTime();
                }
                Thread.sleep(20);
            }
            assertThat(purgedAt).as("a purge ran").isPositive();
            assertThat(windowsTotal(onTime, counter))
                    .as("every acknowledged increment, in its window")
                    .isEqualTo(acknowledged);
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"H2", "MARIADB"})
    void aWindowedIncrementIsRefusedWhileTheClockLagsTheDatabasesByMoreThanHalfTheRetention(TestDatabase database) {
        ShiftedClock clock = new ShiftedClock(Duration.ofMinutes(-3));
        String counter = "behind-" + System.nanoTime();
        try (CounterService counters = CounterService.builder(
                        JooqStores.shared(database).store())
                .clock(clock)
                .windows(counter, WindowSettings.of(Duration.ofSeconds(1)))
                .build()) {
            assertThatThrownBy(() -> counters.increment(counter, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("lags the clock purges go by")
                    .hasMessageContaining("nothing was written");
            clock.shift(Duration.ZERO);
            counters.increment(counter, 4);
            assertThat(windowsTotal(counters, counter)).isEqualTo(4);
        }
    }

    /**
     * A delta-log append whose reply is lost is retried under the same id; the folded delta under that id must
     * outlive the retry. Here another node, whose clock is right, folds and purges between the lost reply and the
     * retry, while the appending node's clock is 30 minutes behind: beyond the 10-minute folded retention.
     */
    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"H2", "MARIADB"})
    void aRetriedAppendOfANodeWhoseClockIsBehindIsNotCountedTwice(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        String counter = "lost-reply-" + System.nanoTime();
        DeltaLog log = stores.store().capability(DeltaLog.class).orElseThrow();
        try (CounterService folder = CounterService.builder(stores.store())
                .defaultStrategy(DeltaLogSettings.defaults().withRecountAtDeltas(1))
                .build()) {
            AtomicBoolean loseReply = new AtomicBoolean(true);
            CounterStore behindsStore = new ForwardingCounterStore(stores.anotherStore()) {
                @Override
                public OptionalLong appendDelta(CounterName name, String deltaId, long delta, Instant now) {
                    OptionalLong appended = super.appendDelta(name, deltaId, delta, now);
                    if (loseReply.compareAndSet(true, false)) {
                        // Before the reply comes back, the other node appends, folds and purges.
                        folder.increment(counter, 1);
                        await().atMost(Duration.ofSeconds(20))
                                .until(() -> log.unfoldedDeltas(CounterName.of(counter), 10)
                                        .isEmpty());
                        throw new CounterStoreException("connection lost before the commit's reply", null);
                    }
                    return appended;
                }
            };
            try (CounterService behind = CounterService.builder(behindsStore)
                    .clock(new ShiftedClock(Duration.ofMinutes(-30)))
                    .defaultStrategy(DeltaLogSettings.defaults())
                    .build()) {
                behind.increment(counter, 100);
            }
            assertThat(folder.getExact(counter))
                    .as("the retried append counted once")
                    .isEqualTo(101);
        }
    }
}
