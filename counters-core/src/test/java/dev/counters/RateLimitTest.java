package dev.counters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.RateLimit.Algorithm;
import dev.counters.RateLimit.CalendarUnit;
import dev.counters.RateLimitRule.OnStoreFailure;
import dev.counters.memory.InMemoryCounterStore;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Limits are read as written, written as read, and checked with messages that name the wrong part. */
class RateLimitTest {

    @Test
    void parsesEachForm() {
        assertThat(RateLimit.parse("100/1m")).isEqualTo(RateLimit.of(100, Duration.ofMinutes(1)));
        assertThat(RateLimit.parse(" 5/s ")).isEqualTo(RateLimit.of(5, Duration.ofSeconds(1)));
        assertThat(RateLimit.parse("20/10s burst 5"))
                .isEqualTo(RateLimit.of(20, Duration.ofSeconds(10)).withBurst(5));
        assertThat(RateLimit.parse("10000/month@Europe/Berlin"))
                .isEqualTo(RateLimit.perCalendar(10_000, CalendarUnit.MONTH, ZoneId.of("Europe/Berlin")));
        assertThat(RateLimit.parse("7/day").zone()).isEqualTo(ZoneOffset.UTC);
        assertThat(RateLimit.parse("3/250ms").period()).isEqualTo(Duration.ofMillis(250));
        assertThat(RateLimit.parse("100/1m sliding-window 6"))
                .isEqualTo(RateLimit.of(100, Duration.ofMinutes(1))
                        .withAlgorithm(Algorithm.SLIDING_WINDOW)
                        .withSubWindows(6));
        assertThat(RateLimit.parse("100/h fixed-window").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "100/1m",
                "5/1s",
                "20/10s burst 5",
                "3/250ms",
                "1000/1d",
                "10000/month@Europe/Berlin",
                "7/day",
                "2/week",
                "100/1m fixed-window",
                "100/1m sliding-window",
                "100/90s sliding-window 6"
            })
    void writesWhatItReads(String spec) {
        assertThat(RateLimit.parse(spec).toString()).isEqualTo(spec);
        assertThat(RateLimit.parse(RateLimit.parse(spec).toString())).isEqualTo(RateLimit.parse(spec));
    }

    @Test
    void writesTheLargestWholeUnit() {
        assertThat(RateLimit.of(1, Duration.ofSeconds(120))).hasToString("1/2m");
        assertThat(RateLimit.of(1, Duration.ofMillis(1500))).hasToString("1/1500ms");
        assertThat(RateLimit.of(1, Duration.ofHours(48))).hasToString("1/2d");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "\"\"|it is empty",
                "100|no '/'",
                "x/1m|the number of permits 'x'",
                "-1/1m|the number of permits '-1'",
                "0/1m|permits must be at least 1",
                "5 per minute|no '/'",
                "5/1w|the period '1w'",
                "5/0s|period must be more than 0",
                "5/400d|longer than 366 days",
                "5/1m burst|'burst' has no number",
                "5/1m burst x|the burst 'x'",
                "5/1m burst 6|burst must be 1 to the permits (5)",
                "5/1m burst 0|burst must be 1 to the permits",
                "5/1m@Europe/Berlin|is for a calendar unit",
                "5/month@Mars/Olympus|the zone '@Mars/Olympus'",
                "5/month burst 2|a burst is for GCRA only",
                "5/1m extra|'extra' is not",
                "5/1m sliding-window 61|2 to 60 sub-windows",
                "5/1m sliding-window 7|split into 7 equal",
                "2000000/1ms|at most one a nanosecond",
                "5/month sliding-window|a calendar quota (month) is a fixed window"
            })
    void namesTheWrongPart(String spec, String message) {
        assertThatThrownBy(() -> RateLimit.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'" + spec + "' is not a rate limit")
                .hasMessageContaining(message);
    }

    @Test
    void checksWhatItIsBuiltFrom() {
        assertThatThrownBy(() -> RateLimit.of(5, Duration.ofNanos(1_500_000)))
                .hasMessageContaining("whole milliseconds");
        assertThatThrownBy(() ->
                        new RateLimit(5, Duration.ofMinutes(1), 5, Algorithm.GCRA, null, ZoneId.of("Europe/Berlin"), 1))
                .hasMessageContaining("a zone is for calendar quotas only");
        assertThatThrownBy(() -> RateLimit.of(5, Duration.ofMinutes(1)).withSubWindows(3))
                .hasMessageContaining("sub-windows are for sliding windows only");
        assertThatThrownBy(() -> new RateLimit(
                        5, Duration.ofDays(2), 5, Algorithm.FIXED_WINDOW, CalendarUnit.DAY, ZoneOffset.UTC, 1))
                .hasMessageContaining("the period of a quota per day is PT24H");
        assertThat(RateLimit.of(5, Duration.ofMinutes(1))
                        .withBurst(2)
                        .withAlgorithm(Algorithm.FIXED_WINDOW)
                        .burst())
                .isEqualTo(5);
        assertThat(RateLimit.perCalendar(5, CalendarUnit.DAY, ZoneId.of("UTC")).zone())
                .isEqualTo(ZoneOffset.UTC);
    }

    @Test
    void rulesFailClosedWithATenthToFailOpen() {
        RateLimitRule rule = RateLimitRule.of(RateLimit.parse("25/1s"));
        assertThat(rule.onStoreFailure()).isEqualTo(OnStoreFailure.CLOSED);
        assertThat(rule.failingOpen().failOpenPermits()).isEqualTo(3);
    }

    @Test
    void builderChecksRuleNames() {
        CounterServiceBuilder builder = CounterService.builder(new InMemoryCounterStore());
        RateLimitRule rule = RateLimitRule.of(RateLimit.parse("5/1s"));
        builder.rateLimit("api.*", rule);
        assertThatThrownBy(() -> builder.rateLimit("api.*", rule)).hasMessageContaining("already set for 'api.*'");
        assertThatThrownBy(() -> builder.rateLimit("a:b", rule)).hasMessageContaining("no ':'");
        assertThatThrownBy(() -> builder.rateLimit("x".repeat(49), rule)).hasMessageContaining("at most 48");
        assertThatThrownBy(() -> builder.rateLimit("a b", rule)).hasMessageContaining("' ' at index 1");
    }
}
