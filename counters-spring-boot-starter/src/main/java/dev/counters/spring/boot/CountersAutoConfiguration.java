package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceServiceBuilder;
import dev.counters.spi.CounterStore;
import dev.counters.spi.MonotonicCache;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Clock;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Gives the application a {@link CounterService} and a {@link SequenceService} on its {@link DataSource}. Every bean
 * backs off when the application defines its own.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnClass({CounterService.class, JooqCounterStore.class})
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(CountersProperties.class)
public final class CountersAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CounterStore counterStore(DataSource dataSource, CountersProperties properties,
            ObjectProvider<JooqCounterStoreBuilderCustomizer> customizers) {
        CountersProperties.Jdbc jdbc = properties.jdbc();
        boolean migrate = switch (jdbc.initializeSchema()) {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> EmbeddedDatabaseConnection.isEmbedded(dataSource);
        };
        JooqCounterStore.Builder builder = JooqCounterStore.builder(dataSource)
                .tablePrefix(jdbc.tablePrefix())
                .migrateSchema(migrate);
        if (jdbc.joinTransactions()) {
            builder.callerTransactions(new SpringCallerTransactions(dataSource));
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    CountersResilience countersResilience(ObjectProvider<RetryRegistry> retries,
            ObjectProvider<CircuitBreakerRegistry> circuitBreakers) {
        return new CountersResilience(retries.getIfUnique(RetryRegistry::ofDefaults),
                circuitBreakers.getIfUnique(CircuitBreakerRegistry::ofDefaults));
    }

    /**
     * The service, from {@code counters.*}, then the application's beans: a {@link Clock}, a {@link MonotonicCache}
     * (shared by every monotonic counter, as across nodes), then each {@link CounterServiceBuilderCustomizer}.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    CounterService counterService(CounterStore counterStore, CountersProperties properties, Environment environment,
            CountersResilience resilience, ObjectProvider<Clock> clock, ObjectProvider<MonotonicCache> monotonicCache,
            ObjectProvider<CounterServiceBuilderCustomizer> customizers) {
        MonotonicCache cache = monotonicCache.getIfUnique();
        CounterServiceBuilder builder = CounterService.builder(counterStore)
                .defaultStrategy(properties.defaultFactory(cache))
                .threadFactory(threadFactory(environment))
                .retryRegistry(resilience.retries())
                .circuitBreakerRegistry(resilience.circuitBreakers());
        clock.ifUnique(builder::clock);
        properties.counters().keySet().forEach(nameOrPattern ->
                builder.strategy(nameOrPattern, properties.factory(nameOrPattern, cache)));
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    CountersLifecycle countersLifecycle(CounterService counterService, CountersProperties properties) {
        return new CountersLifecycle(counterService, properties.shutdownTimeout());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    SequenceService sequenceService(CounterStore counterStore, CountersProperties properties,
            CountersResilience resilience) {
        SequenceServiceBuilder builder = SequenceService.builder(counterStore).retryRegistry(resilience.retries());
        properties.sequences().forEach((nameOrPattern, sequence) -> builder.sequence(nameOrPattern, sequence.settings()));
        return builder.build();
    }

    /** Virtual threads when the application enabled them ({@code spring.threads.virtual.enabled}), as Boot does. */
    private static ThreadFactory threadFactory(Environment environment) {
        return Threading.VIRTUAL.isActive(environment) ? Thread.ofVirtual().factory()
                : Thread.ofPlatform().daemon().factory();
    }
}
