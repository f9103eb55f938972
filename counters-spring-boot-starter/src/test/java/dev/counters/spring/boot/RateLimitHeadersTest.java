package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.RateDecision;
import dev.counters.RateLimit;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The fields' syntax: RFC 9651 lists of sf-strings with integer parameters, as draft-ietf-httpapi-ratelimit-headers-11. */
class RateLimitHeadersTest {

    /** A list member: an sf-string, then ;key=integer parameters (RFC 9651 §3.1, §3.3.3, §3.3.1). */
    private static final Pattern MEMBER = Pattern.compile(
            "\"([\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\"\\\\])*\"(;[a-z*][a-z0-9_.*-]*=-?[0-9]{1,15})*");

    private static final Pattern LIST = Pattern.compile(MEMBER.pattern() + "(, " + MEMBER.pattern() + ")*");

    private static final RateLimit FIVE_A_MINUTE = RateLimit.of(5, Duration.ofMinutes(1));

    @Test
    void onePolicyAndItsCurrentState() {
        RateDecision decision = new RateDecision(
                RateDecision.Outcome.ALLOWED, 3, Duration.ZERO, Duration.ofMillis(41_001), FIVE_A_MINUTE);
        assertThat(RateLimitHeaders.policy("likes", FIVE_A_MINUTE)).isEqualTo("\"likes\";q=5;w=60");
        assertThat(RateLimitHeaders.current("likes", decision)).isEqualTo("\"likes\";r=3;t=42");
    }

    @Test
    void severalPoliciesAreOneList() {
        RateLimit month = RateLimit.perCalendar(10_000, RateLimit.CalendarUnit.MONTH, ZoneId.of("Europe/Berlin"));
        List<RateLimitHeaders.Decided> decided = List.of(
                new RateLimitHeaders.Decided(
                        "burst",
                        new RateDecision(RateDecision.Outcome.ALLOWED, 4, Duration.ZERO, Duration.ZERO, FIVE_A_MINUTE)),
                new RateLimitHeaders.Decided(
                        "api \"v2\"",
                        new RateDecision(
                                RateDecision.Outcome.REFUSED, 0, Duration.ofSeconds(5), Duration.ofDays(3), month)));
        assertThat(RateLimitHeaders.policy(decided))
                .isEqualTo("\"burst\";q=5;w=60, \"api \\\"v2\\\"\";q=10000;w=2678400")
                .matches(LIST);
        assertThat(RateLimitHeaders.current(decided))
                .isEqualTo("\"burst\";r=4;t=0, \"api \\\"v2\\\"\";r=0;t=259200")
                .matches(LIST);
    }

    @Test
    void secondsAreRoundedUpSoThatAClientNeverComesTooEarly() {
        assertThat(RateLimitHeaders.seconds(Duration.ZERO)).isZero();
        assertThat(RateLimitHeaders.seconds(Duration.ofNanos(1))).isEqualTo(1);
        assertThat(RateLimitHeaders.seconds(Duration.ofSeconds(12))).isEqualTo(12);
        assertThat(RateLimitHeaders.seconds(Duration.ofMillis(12_001))).isEqualTo(13);
        assertThat(RateLimitHeaders.seconds(Duration.ofSeconds(-1))).isZero();
    }

    @Test
    void aNameOutsidePrintableAsciiIsRefused() {
        assertThatThrownBy(() -> RateLimitHeaders.string("caf\u00e9")).isInstanceOf(IllegalArgumentException.class);
    }
}
