package dev.counters.spring.boot;

import dev.counters.CounterService;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** The {@code counters} Actuator endpoint, when Actuator is on the classpath and the endpoint is exposed. */
@AutoConfiguration(after = CountersAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(CounterService.class)
public final class CountersEndpointAutoConfiguration {

    // On the method: a class-level condition would be loaded even when its library is absent.
    @Bean
    @ConditionalOnAvailableEndpoint(CountersEndpoint.class)
    @ConditionalOnMissingBean
    CountersEndpoint countersEndpoint(CounterService counterService) {
        return new CountersEndpoint(counterService);
    }
}
