package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.RateLimit;
import dev.counters.RateLimiter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Rate limiters in the meters ({@code counters.ratelimit.decisions} by limiter and outcome, never by key, limiters
 * made after startup too) and in the {@code counters} endpoint (listed with their decisions; a key peeked and reset).
 */
class RateLimitObservabilityTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("counters.store=memory", "counters.rate-limits.limiters.[api.*].limit=2/1m")
            .withConfiguration(AutoConfigurations.of(
                    MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class,
                    CountersAutoConfiguration.class,
                    CountersMetricsAutoConfiguration.class));

    @Test
    void decisionsAreCountedByLimiterAndOutcomeAndALimiterMadeLaterGetsItsMeters() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            RateLimiter limiter = counters.rateLimiter("api.search"); // made after startup
            for (int i = 0; i < 3; i++) {
                limiter.tryAcquire("user-a");
            }
            limiter.tryAcquire("user-b");
            assertThat(registry.find("counters.ratelimit.decisions")
                            .tag("limiter", "api.search")
                            .functionCounter())
                    .as("not bound before the registry reads again")
                    .isNull();
            assertThat(registry.get("counters.ratelimit.limiters").gauge().value())
                    .isEqualTo(counters.rateLimiters().size());
            assertThat(decisions(registry, "api.search", "allowed")).isEqualTo(3);
            assertThat(decisions(registry, "api.search", "refused")).isEqualTo(1);
            assertThat(decisions(registry, "api.search", "fail-open")).isZero();
            assertThat(decisions(registry, "api.search", "fail-closed")).isZero();
            assertThat(registry.find("counters.ratelimit.decisions").meters())
                    .allSatisfy(meter -> assertThat(meter.getId().getTags())
                            .extracting(tag -> tag.getKey())
                            .containsExactlyInAnyOrder("limiter", "outcome"));
        });
    }

    @Test
    void theEndpointListsTheLimitersAndPeeksAndResetsAKey() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            RateLimiter limiter = counters.rateLimiter("api.search");
            counters.rateLimiter("quota", RateLimit.of(10, Duration.ofHours(1)));
            limiter.tryAcquire("k");
            limiter.tryAcquire("k");
            limiter.tryAcquire("k");
            CountersEndpoint endpoint = new CountersEndpoint(counters, Show.ALWAYS, Set.of());

            assertThat(endpoint.counters(SecurityContext.NONE, null, null).limiters())
                    .containsExactly(
                            new CountersEndpoint.LimiterDescriptor(
                                    "api.search",
                                    "2/1m",
                                    "gcra",
                                    Map.of("allowed", 2L, "refused", 1L, "fail-open", 0L, "fail-closed", 0L)),
                            new CountersEndpoint.LimiterDescriptor(
                                    "quota",
                                    "10/1h",
                                    "gcra",
                                    Map.of("allowed", 0L, "refused", 0L, "fail-open", 0L, "fail-closed", 0L)));
            CountersEndpoint.KeyDescriptor peeked =
                    endpoint.limiterKey(SecurityContext.NONE, "limiters", "api.search", "k");
            assertThat(peeked.admitted()).isFalse();
            assertThat(peeked.remaining()).isZero();
            assertThat(peeked.resetAfterSeconds()).isPositive();
            assertThat(limiter.decisions(dev.counters.RateDecision.Outcome.REFUSED))
                    .as("a peek is no decision")
                    .isEqualTo(1);

            CountersEndpoint.KeyDescriptor reset =
                    endpoint.resetLimiterKey(SecurityContext.NONE, "limiters", "api.search", "k");
            assertThat(reset.admitted()).isTrue();
            assertThat(reset.remaining()).isEqualTo(2);
            assertThat(limiter.tryAcquire("k").allowed()).isTrue();

            assertThat(endpoint.limiterKey(SecurityContext.NONE, "limiters", "never-made", "k"))
                    .isNull();
            assertThatThrownBy(() -> endpoint.limiterKey(SecurityContext.NONE, "limits", "api.search", "k"))
                    .isInstanceOf(InvalidEndpointRequestException.class);
            CountersEndpoint hidden = new CountersEndpoint(counters, Show.NEVER, Set.of());
            assertThat(hidden.limiterKey(SecurityContext.NONE, "limiters", "api.search", "k"))
                    .as("permits hidden as values are")
                    .isEqualTo(new CountersEndpoint.KeyDescriptor("api.search", "k", null, null, null));
            assertThat(hidden.counters(SecurityContext.NONE, null, null).limiters())
                    .hasSize(2);
        });
    }

    private static double decisions(MeterRegistry registry, String limiter, String outcome) {
        return registry.get("counters.ratelimit.decisions")
                .tags("limiter", limiter, "outcome", outcome)
                .functionCounter()
                .count();
    }
}
