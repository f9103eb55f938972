package dev.counters.spring.boot;

import dev.counters.CounterService;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@code counters} Actuator endpoint, when Actuator is on the classpath and the endpoint is exposed. */
@AutoConfiguration(after = CountersAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
@ConditionalOnBean(CounterService.class)
@EnableConfigurationProperties(CountersEndpointProperties.class)
public final class CountersEndpointAutoConfiguration {

    // On the method: a class-level condition would be loaded even when its library is absent.
    @Bean
    @ConditionalOnAvailableEndpoint(CountersEndpoint.class)
    @ConditionalOnMissingBean
    CountersEndpoint countersEndpoint(CounterService counterService, CountersEndpointProperties properties) {
        return new CountersEndpoint(counterService, properties.getShowValues(), properties.getRoles());
    }

    /** A write while the endpoint is read-only gets a 405 that says why, in a servlet web application. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnClass(name = "org.springframework.web.servlet.HandlerExceptionResolver")
    static final class WritesOff {

        @Bean
        @ConditionalOnAvailableEndpoint(value = CountersEndpoint.class, exposure = EndpointExposure.WEB)
        CountersEndpointWritesOff countersEndpointWritesOff(ObjectProvider<PathMappedEndpoints> endpoints) {
            return new CountersEndpointWritesOff(() -> {
                PathMappedEndpoints paths = endpoints.getIfAvailable();
                return paths == null ? null : paths.getPath(EndpointId.of("counters"));
            });
        }
    }
}
