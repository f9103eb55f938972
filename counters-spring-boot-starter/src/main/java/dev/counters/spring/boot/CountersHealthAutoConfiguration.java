package dev.counters.spring.boot;

import dev.counters.CounterService;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/** The {@code counters} health indicator, when Spring Boot's health support is on the classpath. */
@AutoConfiguration(after = CountersAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(CounterService.class)
public final class CountersHealthAutoConfiguration {

    // On the method: a class-level condition would be loaded even when its library is absent.
    @Bean
    @ConditionalOnEnabledHealthIndicator("counters")
    @ConditionalOnMissingBean(name = "countersHealthIndicator")
    CountersHealthIndicator countersHealthIndicator(
            CounterService counterService, ObjectProvider<CountersResilience> resilience) {
        CountersResilience registries = resilience.getIfUnique();
        return new CountersHealthIndicator(counterService, registries == null ? null : registries.circuitBreakers());
    }
}
