package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.spi.CounterStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Micrometer meters of counters, when Micrometer is on the classpath. */
@AutoConfiguration(after = CountersAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration")
@ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
@ConditionalOnBean({CounterService.class, CounterStore.class})
public final class CountersMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CountersMetrics countersMetrics(CounterService counterService, CounterStore counterStore) {
        return new CountersMetrics(counterService, counterStore);
    }
}
