package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * {@link RateLimitRules} maps {@code counters.rate-limits.limiters} to the service's rate-limit rules: every setting
 * reaches its rule, the top's failure settings are the default of each limiter's, and a refusal names the property.
 */
class RateLimitRulesTest {

    @Test
    void everySettingOfALimiterReachesItsRule() {
        Map<String, RateLimitRule> rules = rules(Map.of(
                        "counters.rate-limits.limiters.[likes].limit", "5/1m",
                        "counters.rate-limits.limiters.[api.*].limit", "100/1m",
                        "counters.rate-limits.limiters.[api.*].burst", "10",
                        "counters.rate-limits.limiters.[api.*].on-store-failure", "open",
                        "counters.rate-limits.limiters.[api.*].fail-open-permits", "3",
                        "counters.rate-limits.limiters.[quota.*].limit", "10000/month",
                        "counters.rate-limits.limiters.[quota.*].zone", "Europe/Berlin",
                        "counters.rate-limits.limiters.[minute.*].limit", "60/1m",
                        "counters.rate-limits.limiters.[minute.*].algorithm", "sliding-window",
                        "counters.rate-limits.limiters.[minute.*].sub-windows", "6"))
                .rules();
        assertThat(rules.get("likes")).isEqualTo(RateLimitRule.of(RateLimit.of(5, Duration.ofMinutes(1))));
        assertThat(rules.get("api.*"))
                .isEqualTo(RateLimitRule.of(
                                RateLimit.of(100, Duration.ofMinutes(1)).withBurst(10))
                        .failingOpen()
                        .withFailOpenPermits(3));
        assertThat(rules.get("quota.*").limit())
                .isEqualTo(RateLimit.perCalendar(10_000, RateLimit.CalendarUnit.MONTH, ZoneId.of("Europe/Berlin")));
        assertThat(rules.get("minute.*").limit())
                .isEqualTo(RateLimit.of(60, Duration.ofMinutes(1))
                        .withAlgorithm(RateLimit.Algorithm.SLIDING_WINDOW)
                        .withSubWindows(6));
    }

    @Test
    void theTopsFailureSettingsAreEachLimitersDefault() {
        Map<String, RateLimitRule> rules = rules(Map.of(
                        "counters.rate-limits.on-store-failure", "open",
                        "counters.rate-limits.fail-open-permits", "7",
                        "counters.rate-limits.limiters.[a].limit", "100/1s",
                        "counters.rate-limits.limiters.[b].limit", "100/1s",
                        "counters.rate-limits.limiters.[b].on-store-failure", "closed"))
                .rules();
        assertThat(rules.get("a").onStoreFailure()).isEqualTo(RateLimitRule.OnStoreFailure.OPEN);
        assertThat(rules.get("a").failOpenPermits()).isEqualTo(7);
        assertThat(rules.get("b").onStoreFailure()).isEqualTo(RateLimitRule.OnStoreFailure.CLOSED);
        assertThat(rules(Map.of("counters.rate-limits.limiters.[a].limit", "100/1s"))
                        .rules()
                        .get("a"))
                .as("unset: closed, a tenth of the permits")
                .isEqualTo(new RateLimitRule(
                        RateLimit.of(100, Duration.ofSeconds(1)), RateLimitRule.OnStoreFailure.CLOSED, 10));
    }

    @Test
    void theRulesKeepTheirOrder() {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String name : List.of("z.*", "a.*", "m")) {
            properties.put("counters.rate-limits.limiters.[" + name + "].limit", "1/s");
        }
        assertThat(rules(properties).rules()).containsOnlyKeys("z.*", "a.*", "m");
        assertThat(List.copyOf(rules(properties).rules().keySet())).containsExactly("z.*", "a.*", "m");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            counters.rate-limits.limiters.[likes].limit=5 per minute | counters.rate-limits.limiters.[likes].limit | 5 per minute' is not a rate limit
            counters.rate-limits.limiters.[likes].burst=3           | counters.rate-limits.limiters.[likes].limit | a limiter needs a limit
            counters.rate-limits.limiters.[likes].limit=5/1m & counters.rate-limits.limiters.[likes].burst=6 | counters.rate-limits.limiters.[likes].burst | burst must be 1 to the permits (5), was 6
            counters.rate-limits.limiters.[likes].limit=5/1m & counters.rate-limits.limiters.[likes].zone=Europe/Berlin | counters.rate-limits.limiters.[likes].zone | a zone is for calendar quotas only
            counters.rate-limits.limiters.[likes].limit=5/1m & counters.rate-limits.limiters.[likes].sub-windows=7 | counters.rate-limits.limiters.[likes].sub-windows | sub-windows are for sliding windows only
            counters.rate-limits.limiters.[a:b].limit=5/1m           | counters.rate-limits.limiters.[a:b] | :
            counters.rate-limits.limiters.[likes].limit=5/1m & counters.rate-limits.limiters.[likes].fail-open-permits=-1 | counters.rate-limits.limiters.[likes].fail-open-permits | fail-open-permits must be 0 or more
            counters.rate-limits.fail-open-permits=-2                | counters.rate-limits.fail-open-permits | must be 0 or more, was -2
            """)
    void aRefusalNamesTheProperty(String properties, String property, String problem) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String pair : properties.split(" & ")) {
            String[] parts = pair.split("=", 2);
            map.put(parts[0], parts[1]);
        }
        assertThatThrownBy(() -> rules(map))
                .isInstanceOf(CounterRules.InvalidPropertyException.class)
                .hasMessageStartingWith(property)
                .hasMessageContaining(problem);
    }

    private static RateLimitRules rules(Map<String, String> properties) {
        CountersProperties bound = new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("counters", Bindable.of(CountersProperties.class));
        return RateLimitRules.of(bound.rateLimits());
    }
}
