package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The library's Resilience4j registries are not beans another library could take for the application's; the
 * application's own registry beans are used; only the {@code counters-*} instances are bound to meters.
 */
class ResilienceRegistriesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("counters.store=memory", "counters.counters.[views.*].strategy=buffered")
            .withConfiguration(AutoConfigurations.of(
                    MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class,
                    CountersAutoConfiguration.class,
                    CountersMetricsAutoConfiguration.class));

    @Test
    void noRegistryBeanIsPublished() {
        runner.run(context -> {
            assertThat(context).doesNotHaveBean(RetryRegistry.class).doesNotHaveBean(CircuitBreakerRegistry.class);
            context.getBean(CounterService.class).increment("likes");
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(Search.in(meters)
                            .name("resilience4j.retry.calls")
                            .tag("name", "counters-atomic")
                            .meters())
                    .isNotEmpty();
            assertThat(Search.in(meters)
                            .name("resilience4j.circuitbreaker.state")
                            .tag("name", "counters-buffered[views.*]")
                            .meters())
                    .isNotEmpty();
        });
    }

    @Test
    void theApplicationsRegistriesAreUsedAndOnlyTheCountersInstancesBound() {
        RetryRegistry retries = RetryRegistry.ofDefaults();
        retries.retry("payments");
        CircuitBreakerRegistry circuitBreakers = CircuitBreakerRegistry.ofDefaults();
        circuitBreakers.circuitBreaker("payments");
        runner.withBean(RetryRegistry.class, () -> retries)
                .withBean(CircuitBreakerRegistry.class, () -> circuitBreakers)
                .run(context -> {
                    context.getBean(CounterService.class).increment("likes");
                    assertThat(retries.find("counters-atomic"))
                            .as("in the application's registry")
                            .isPresent();
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(Search.in(meters)
                                    .name("resilience4j.retry.calls")
                                    .tag("name", "counters-atomic")
                                    .meters())
                            .isNotEmpty();
                    assertThat(Search.in(meters)
                                    .name("resilience4j.circuitbreaker.state")
                                    .tag("name", "counters-buffered[views.*]")
                                    .meters())
                            .isNotEmpty();
                    assertThat(Search.in(meters).tag("name", "payments").meters())
                            .as("the application's own instances are not the library's to bind")
                            .isEmpty();
                });
    }

    @Test
    void aCountersInstanceAddedLaterIsBoundToo() {
        runner.run(context -> {
            CountersResilience resilience = context.getBean(CountersResilience.class);
            resilience.retries().retry("counters-later");
            assertThat(Search.in(context.getBean(MeterRegistry.class))
                            .name("resilience4j.retry.calls")
                            .tag("name", "counters-later")
                            .meters())
                    .isNotEmpty();
        });
    }
}
