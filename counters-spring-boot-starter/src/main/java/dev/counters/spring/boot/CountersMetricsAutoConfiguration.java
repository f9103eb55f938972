package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Failovers;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer meters of counters, when Micrometer is on the classpath; with Resilience4j's Micrometer module too, the
 * meters of the retries and circuit breakers the strategies use ({@code resilience4j.retry.calls{name=counters-…}}).
 */
@AutoConfiguration(
        after = CountersAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration")
@ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
@ConditionalOnBean(CounterService.class)
public final class CountersMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CountersMetrics countersMetrics(CounterService counterService, ObjectProvider<CounterRules> rules) {
        return new CountersMetrics(counterService, memberRules(rules.getIfAvailable()));
    }

    /**
     * {@code counters.failover.skips{kind=sequence|maximum}}: the rows moved ahead after a change of the database's
     * primary, on a store that offers {@link Failovers}.
     */
    @Bean
    MeterBinder countersFailoverMetrics(ObjectProvider<CounterStore> store) {
        return registry ->
                store.ifAvailable(each -> each.capability(Failovers.class).ifPresent(failovers -> {
                    String description = "Rows that skipped ahead after a change of the database's primary";
                    FunctionCounter.builder(
                                    "counters.failover.skips",
                                    failovers,
                                    f -> f.skips().sequences())
                            .description(description)
                            .tag("kind", "sequence")
                            .register(registry);
                    FunctionCounter.builder(
                                    "counters.failover.skips",
                                    failovers,
                                    f -> f.skips().maxima())
                            .description(description)
                            .tag("kind", "maximum")
                            .register(registry);
                }));
    }

    /** The rules under {@code counters.counters} with {@code members: true}; none for a service of the application's. */
    private static Set<String> memberRules(@Nullable CounterRules rules) {
        if (rules == null) {
            return Set.of();
        }
        Set<String> members = new LinkedHashSet<>();
        rules.rules().forEach((rule, settings) -> {
            if (settings.members()) {
                members.add(rule);
            }
        });
        return members;
    }

    /**
     * Binds the {@code counters-*} retries and circuit breakers, and nothing else of the registries they live in: the
     * application's other instances are its own to bind (Resilience4j's Spring Boot module does, and Micrometer keeps
     * one meter per name and tags).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics")
    @ConditionalOnBean(CountersResilience.class)
    static final class ResilienceMetrics {

        @Bean
        MeterBinder countersResilienceMetrics(CountersResilience resilience) {
            return new CountersResilienceMetrics(resilience);
        }
    }
}
