package dev.counters.spring.boot;

import dev.counters.CounterService;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Rate limits on Spring MVC requests, in a servlet web application: the {@link RateLimited} annotations of handlers
 * and the routes of {@code counters.rate-limits.routes}, checked by a {@code HandlerInterceptor} before the handler.
 */
@AutoConfiguration(after = CountersAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = "org.springframework.web.servlet.HandlerInterceptor")
@ConditionalOnBean(CounterService.class)
public final class CountersRateLimitAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RateLimitInterceptor countersRateLimitInterceptor(
            CounterService counterService, CountersProperties properties, ListableBeanFactory beans) {
        return new RateLimitInterceptor(counterService, properties.rateLimits(), beans);
    }

    @Bean
    WebMvcConfigurer countersRateLimits(RateLimitInterceptor interceptor) {
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(interceptor);
            }
        };
    }
}
