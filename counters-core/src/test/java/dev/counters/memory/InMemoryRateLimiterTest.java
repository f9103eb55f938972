package dev.counters.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.RateDecision.Outcome;
import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import dev.counters.RateLimiter;
import dev.counters.contract.RateLimiterContract;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import org.junit.jupiter.api.Test;

class InMemoryRateLimiterTest extends RateLimiterContract {

    InMemoryRateLimiterTest() {
        super(InMemoryFixture.INSTANCE);
    }

    private static final RateLimit TEN = RateLimit.parse("10/1m");
    private static final RateLimit FIVE = RateLimit.parse("5/1m");
    private static final RateLimit TWO = RateLimit.parse("2/1m");

    @Test
    void theServiceGivesALimiterTheLimitOfItsExactRuleThenOfTheFirstPatternThatMatches() {
        CircuitBreakerRegistry breakers = CircuitBreakerRegistry.ofDefaults();
        try (CounterService counters = CounterService.builder(new InMemoryCounterStore())
                .circuitBreakerRegistry(breakers)
                .rateLimit("api.*", RateLimitRule.of(TEN))
                .rateLimit("api.login*", RateLimitRule.of(TWO).failingOpen())
                .rateLimit("api.search", RateLimitRule.of(FIVE))
                .build()) {
            assertThat(counters.rateLimiter("api.search").limit()).isEqualTo(FIVE);
            assertThat(counters.rateLimiter("api.login").limit()).isEqualTo(TEN); // the first pattern wins
            assertThat(counters.rateLimiter("api.other").limit()).isEqualTo(TEN);
            assertThat(counters.rateLimiter("api.search")).isSameAs(counters.rateLimiter("api.search"));
            assertThat(counters.rateLimiters())
                    .extracting(RateLimiter::name)
                    .containsExactly("api.search", "api.login", "api.other");
            assertThat(counters.rateLimiter("api.search")
                            .tryAcquire("user-1", 5)
                            .remaining())
                    .isZero();
            assertThat(counters.rateLimiter("api.search").tryAcquire("user-1").outcome())
                    .isEqualTo(Outcome.REFUSED);
            assertThat(counters.rateLimiter("api.search").decisions(Outcome.REFUSED))
                    .isEqualTo(1);
            assertThat(breakers.getAllCircuitBreakers())
                    .extracting(breaker -> breaker.getName())
                    .containsExactlyInAnyOrder("counters-ratelimit[api.search]", "counters-ratelimit[api.*]");
        }
    }

    @Test
    void aLimiterHasOneLimitAndAGoodName() {
        try (CounterService counters = CounterService.builder(new InMemoryCounterStore())
                .rateLimit("api.*", RateLimitRule.of(TEN))
                .rateLimit("exact", RateLimitRule.of(TEN))
                .build()) {
            assertThatThrownBy(() -> counters.rateLimiter("exact", FIVE))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'exact' has the limit 10/1m from its rule, not 5/1m");
            assertThatThrownBy(() -> counters.rateLimiter("other"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("No rate-limit rule matches 'other'");
            RateLimiter adHoc = counters.rateLimiter("other", FIVE);
            assertThat(counters.rateLimiter("other", FIVE)).isSameAs(adHoc);
            assertThatThrownBy(() -> counters.rateLimiter("other", TWO))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'other' has the limit 5/1m already, not 2/1m");
            assertThatThrownBy(() -> counters.rateLimiter("other"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("No rate-limit rule");
            assertThat(counters.rateLimiter("api.x", FIVE).limit()).isEqualTo(FIVE); // a pattern: how it fails only
            assertThatThrownBy(() -> counters.rateLimiter("api.x")).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> counters.rateLimiter("a:b", FIVE))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("no ':'");
            assertThatThrownBy(() -> counters.rateLimiter("x".repeat(49), FIVE))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 48 characters");
            assertThatThrownBy(() -> counters.rateLimiter("a*", FIVE))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'*' at index 1");
            assertThat(counters.rateLimiter("x".repeat(48), FIVE)
                            .tryAcquire("k")
                            .allowed())
                    .isTrue();
        }
    }

    @Test
    void aClosedServiceMakesNoLimiter() {
        CounterService counters =
                CounterService.builder(new InMemoryCounterStore()).build();
        counters.close();
        assertThatThrownBy(() -> counters.rateLimiter("x", FIVE)).hasMessageContaining("closed");
    }
}
