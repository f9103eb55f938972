package dev.counters.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.IdempotencyKey;
import dev.counters.IdempotencyKeyReusedException;
import dev.counters.WindowSettings;
import dev.counters.WindowedCounter;
import dev.counters.contract.MutableClock;
import dev.counters.internal.NameRules;
import dev.counters.internal.Time;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Windows: where they start and end, in UTC and across clock changes, what reads return, and their purge. */
class WindowsTest {

    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

    private static Instant at(String instant) {
        return Instant.parse(instant);
    }

    @Test
    void windowsAreAlignedToMidnightInTheirZone() {
        Windows hourly = new Windows(WindowSettings.of(Duration.ofHours(1)));
        assertThat(hourly.start(at("2026-11-23T14:59:59.999Z"))).isEqualTo(at("2026-11-23T14:00:00Z"));
        assertThat(hourly.end(at("2026-11-23T14:00:00Z"))).isEqualTo(at("2026-11-23T15:00:00Z"));
        Windows fiveMinutes = new Windows(WindowSettings.of(Duration.ofMinutes(5)));
        assertThat(fiveMinutes.start(at("2026-11-23T14:07:00Z"))).isEqualTo(at("2026-11-23T14:05:00Z"));

        Windows dailyInBerlin =
                new Windows(WindowSettings.of(Duration.ofDays(1)).withZone(BERLIN));
        assertThat(dailyInBerlin.start(at("2026-11-23T23:30:00Z")))
                .as("already the 24th in Berlin")
                .isEqualTo(at("2026-11-23T23:00:00Z"));
        assertThat(dailyInBerlin.start(at("2026-11-30T23:30:00Z")))
                .as("a month's end: the 1st of December")
                .isEqualTo(at("2026-11-30T23:00:00Z"));
    }

    @Test
    void daysWhenTheClocksChangeHave23Or25HoursAndTheirHoursStayDistinct() {
        Windows dailyInBerlin =
                new Windows(WindowSettings.of(Duration.ofDays(1)).withZone(BERLIN));
        Instant october25 = dailyInBerlin.start(at("2026-10-25T12:00:00Z")); // clocks go back at 03:00
        assertThat(Duration.between(october25, dailyInBerlin.end(october25))).isEqualTo(Duration.ofHours(25));
        Instant march29 = dailyInBerlin.start(at("2026-03-29T12:00:00Z")); // clocks go forward at 02:00
        assertThat(Duration.between(march29, dailyInBerlin.end(march29))).isEqualTo(Duration.ofHours(23));

        Windows hourlyInBerlin =
                new Windows(WindowSettings.of(Duration.ofHours(1)).withZone(BERLIN));
        Instant firstTwoOClock = hourlyInBerlin.start(at("2026-10-25T00:30:00Z")); // 02:30 CEST
        Instant secondTwoOClock = hourlyInBerlin.start(at("2026-10-25T01:30:00Z")); // 02:30 CET
        assertThat(firstTwoOClock).isNotEqualTo(secondTwoOClock);
        assertThat(Windows.name(CounterName.of("c"), firstTwoOClock))
                .isNotEqualTo(Windows.name(CounterName.of("c"), secondTwoOClock));
        assertThat(hourlyInBerlin.end(firstTwoOClock)).isEqualTo(secondTwoOClock);
    }

    @Test
    void settingsAndNamesAreChecked() {
        assertThatThrownBy(() -> WindowSettings.of(Duration.ofMinutes(7))).hasMessageContaining("divides a day");
        assertThatThrownBy(() -> WindowSettings.of(Duration.ofDays(2))).hasMessageContaining("1d");
        assertThatThrownBy(() -> WindowSettings.of(Duration.ofMillis(1500))).hasMessageContaining("whole number");
        assertThatThrownBy(() -> WindowSettings.of(Duration.ofHours(1)).withRetention(Duration.ofMinutes(5)))
                .hasMessageContaining("at least one window");
        try (CounterService counters = CounterService.builder(new InMemoryCounterStore())
                .windows("api.*", WindowSettings.of(Duration.ofMinutes(1)))
                .build()) {
            assertThatThrownBy(() -> counters.increment("api." + "x".repeat(110)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 109");
            assertThatThrownBy(() -> counters.increment("api.a:w:b")).hasMessageContaining(":w:");
            assertThatThrownBy(() -> counters.windowed("other"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has no windows");
        }
    }

    @Test
    void readsByWindowSlidingSumsAndSeries() {
        MutableClock clock = new MutableClock(at("2026-11-23T14:00:30Z"));
        try (CounterService counters = CounterService.builder(new InMemoryCounterStore())
                .defaultStrategy(ShardedSettings.defaults())
                .windows("api.calls", WindowSettings.of(Duration.ofMinutes(1)))
                .clock(clock)
                .build()) {
            counters.increment("api.calls", 5);
            clock.advance(Duration.ofMinutes(1));
            counters.increment("api.calls", 7);
            assertThat(counters.incrementAndGet("api.calls", 1))
                    .as("the window's value")
                    .isEqualTo(8);
            clock.advance(Duration.ofMinutes(2));
            counters.increment("api.calls", 2);
            WindowedCounter windows = counters.windowed("api.calls");
            assertThat(windows.current()).isEqualTo(2);
            assertThat(counters.get("api.calls"))
                    .as("get reads the current window")
                    .isEqualTo(2);
            assertThat(counters.get(List.of("api.calls"))).containsEntry("api.calls", 2L);
            assertThat(windows.at(at("2026-11-23T14:00:00Z"))).isEqualTo(5);
            assertThat(windows.at(at("2026-11-23T14:01:59Z"))).isEqualTo(8);
            assertThat(windows.sumOfLast(Duration.ofSeconds(60)))
                    .as("this window and the one before")
                    .isEqualTo(2);
            assertThat(windows.sumOfLast(Duration.ofMinutes(3)))
                    .as("from 14:00:30: the 14:00 window too")
                    .isEqualTo(15);
            assertThat(windows.series(at("2026-11-23T14:00:00Z"), at("2026-11-23T14:04:00Z")))
                    .extracting(WindowedCounter.Window::value)
                    .containsExactly(5L, 8L, 0L, 2L);
            assertThat(windows.last(3))
                    .extracting(WindowedCounter.Window::value)
                    .containsExactly(8L, 0L, 2L);
            assertThat(windows.last(3).get(2).start()).isEqualTo(at("2026-11-23T14:03:00Z"));
            counters.delete("api.calls");
            assertThat(windows.sumOfLast(Duration.ofMinutes(10)))
                    .as("every window removed")
                    .isZero();
        }
    }

    @Test
    void aKeyedIncrementRepeatedAfterItsWindowEndedCountsOnceInItsFirstWindow() {
        MutableClock clock = new MutableClock(at("2026-11-23T14:00:50Z"));
        try (CounterService counters = CounterService.builder(new InMemoryCounterStore())
                .windows("api.calls", WindowSettings.of(Duration.ofMinutes(1)))
                .clock(clock)
                .build()) {
            IdempotencyKey key = IdempotencyKey.of("request-7");
            counters.increment("api.calls", 5, key);
            clock.advance(Duration.ofSeconds(20)); // the client repeats it in the next minute
            counters.increment("api.calls", 1);
            assertThat(counters.incrementAndGet("api.calls", 5, key))
                    .as("the current window's value")
                    .isEqualTo(1);
            WindowedCounter windows = counters.windowed("api.calls");
            assertThat(windows.last(2))
                    .extracting(WindowedCounter.Window::value)
                    .containsExactly(5L, 1L);
            assertThatThrownBy(() -> counters.increment("api.calls", 6, key))
                    .isInstanceOf(IdempotencyKeyReusedException.class)
                    .hasMessageContaining("request-7");
        }
    }

    @Test
    void windowsPastTheirRetentionArePurgedAndNothingElse() {
        InMemoryCounterStore store = new InMemoryCounterStore();
        MutableClock clock = new MutableClock(at("2026-11-23T14:00:00Z"));
        AtomicLong ticker = new AtomicLong();
        WindowSettings settings = WindowSettings.of(Duration.ofMinutes(1)).withRetainedWindows(10);
        try (CounterService counters = CounterService.builder(store)
                .windows("api.*", settings)
                .windows("exact", settings)
                .clock(clock)
                .build()) {
            for (int minute = 0; minute < 30; minute++) {
                counters.increment("api.a");
                counters.increment("exact");
                counters.increment("api:b", 1); // not windowed: no rule matches it
                clock.advance(Duration.ofMinutes(1));
            }
            Time time =
                    new Time(clock, () -> ticker.get() + Duration.ofMinutes(30).toNanos());
            Map<String, Windows> rules = Map.of("api.*", new Windows(settings), "exact", new Windows(settings));
            WindowPurge purge = new WindowPurge(
                    store,
                    NameRules.of(Map.of(), route(counters)),
                    NameRules.of(
                            Map.of("api.*", Optional.of(rules.get("api.*")), "exact", Optional.of(rules.get("exact"))),
                            Optional.empty()),
                    rules);
            assertThat(purge.run(time.steady()))
                    .as("windows that ended more than 10 minutes ago, of both rules")
                    .isEqualTo(2 * 19);
            WindowedCounter windows = counters.windowed("api.a");
            assertThat(windows.series(at("2026-11-23T14:00:00Z"), clock.instant()))
                    .extracting(WindowedCounter.Window::value)
                    .containsExactly(
                            0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 0L, 1L, 1L, 1L, 1L,
                            1L, 1L, 1L, 1L, 1L, 1L, 1L);
            assertThat(counters.get("api:b"))
                    .as("a counter without windows is kept")
                    .isEqualTo(30);
            assertThat(purge.run(time.steady())).as("nothing more is due").isZero();
        }
    }

    /** The route of the service's default rule, for a purge built by hand. */
    private static Route route(CounterService counters) {
        return ((Handle) counters.counter("api.a")).route();
    }

    @Test
    void aClockSetForwardCannotPurgeWindowsStillWithinTheirRetention() {
        InMemoryCounterStore store = new InMemoryCounterStore();
        MutableClock clock = new MutableClock(at("2026-11-23T14:00:00Z"));
        WindowSettings settings = WindowSettings.of(Duration.ofMinutes(1)).withRetainedWindows(10);
        try (CounterService counters = CounterService.builder(store)
                .windows("api", settings)
                .clock(clock)
                .build()) {
            Time time = new Time(clock, () -> 0); // the service's steady time: it will not move
            counters.increment("api", 3);
            clock.advance(Duration.ofDays(30)); // a wrong clock: the next increment lands in its window
            counters.increment("api", 4);
            Windows windows = new Windows(settings);
            WindowPurge purge = new WindowPurge(
                    store,
                    NameRules.of(Map.of(), route(counters, "api")),
                    NameRules.of(Map.of("api", Optional.of(windows)), Optional.empty()),
                    Map.of("api", windows));
            assertThat(purge.run(time.steady())).isZero();
            clock.advance(Duration.ofDays(-30));
            assertThat(counters.windowed("api").current())
                    .as("the clock set back: its window is there")
                    .isEqualTo(3);
            assertThat(counters.windowed("api").at(at("2026-12-23T14:00:00Z"))).isEqualTo(4);
        }
    }

    private static Route route(CounterService counters, String name) {
        return ((Handle) counters.counter(name)).route();
    }
}
