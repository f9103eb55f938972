package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceServiceBuilder;
import dev.counters.spi.CounterStore;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Gives the application a {@link CounterService} and a {@link SequenceService} on its {@link DataSource} (the one
 * marked {@link CountersDataSource}, else its single or primary one), or in memory ({@code counters.store: memory}).
 * Every bean backs off when the application defines its own; {@code counters.enabled: false} turns it all off. The
 * store is built after the application's own database initialization (Flyway, Liquibase, SQL scripts), which may
 * create the tables counters use.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class, afterName = {
        "io.github.resilience4j.springboot.retry.autoconfigure.RetryAutoConfiguration",
        "io.github.resilience4j.springboot.circuitbreaker.autoconfigure.CircuitBreakerAutoConfiguration",
        "io.github.resilience4j.springboot3.retry.autoconfigure.RetryAutoConfiguration",
        "io.github.resilience4j.springboot3.circuitbreaker.autoconfigure.CircuitBreakerAutoConfiguration"})
@ConditionalOnClass({CounterService.class, JooqCounterStore.class})
@ConditionalOnBooleanProperty(name = "counters.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CountersProperties.class)
@Import({CountersAutoConfiguration.JdbcStore.class, CountersAutoConfiguration.MemoryStore.class,
        DatabaseInitializationDependencyConfigurer.class})
@ImportRuntimeHints(CountersRuntimeHints.class)
public final class CountersAutoConfiguration {

    /** Counters in the application's database. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "counters.store", havingValue = "jdbc", matchIfMissing = true)
    @Conditional(OnCountersDataSource.class)
    static final class JdbcStore {

        @Bean
        @ConditionalOnMissingBean
        @DependsOnDatabaseInitialization
        CounterStore counterStore(ObjectProvider<DataSource> dataSources,
                @CountersDataSource ObjectProvider<DataSource> countersDataSource, CountersProperties properties,
                ObjectProvider<JooqCounterStoreBuilderCustomizer> customizers) {
            DataSource dataSource = countersDataSource.getIfAvailable(dataSources::getObject);
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
            JooqCounterStore store = builder.build();
            if (!migrate) {
                store.checkSchema(); // at startup, rather than at the first write that needs a missing table
            }
            return store;
        }
    }

    /** Counters in this JVM's memory, for tests that need no database. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "counters.store", havingValue = "memory")
    static final class MemoryStore {

        @Bean
        @ConditionalOnMissingBean
        CounterStore counterStore() {
            return new InMemoryCounterStore();
        }
    }

    /** A DataSource counters can use: the application's only (or primary) one, or one marked for counters. */
    static final class OnCountersDataSource extends AnyNestedCondition {

        OnCountersDataSource() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnSingleCandidate(DataSource.class)
        static final class SingleDataSource {
        }

        @ConditionalOnBean(value = DataSource.class, annotation = CountersDataSource.class)
        static final class MarkedDataSource {
        }
    }

    /**
     * The Resilience4j registries of the strategies and sequences: the application's {@link RetryRegistry} and
     * {@link CircuitBreakerRegistry} beans when it has them (its own, or Resilience4j's starter's), so it decides what
     * {@code counters-*} instances retry; else registries of the library's own, kept out of the context so that no
     * other library takes them for the application's.
     */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(CounterStore.class)
    CountersResilience countersResilience(ObjectProvider<RetryRegistry> retries,
            ObjectProvider<CircuitBreakerRegistry> circuitBreakers) {
        return new CountersResilience(retries.getIfUnique(RetryRegistry::ofDefaults),
                circuitBreakers.getIfUnique(CircuitBreakerRegistry::ofDefaults));
    }

    /**
     * The service, from {@code counters.*}, then the application's beans: a {@link Clock} marked
     * {@link CountersClock} (an unmarked one is the application's, and may be fixed in its tests), a {@link MonotonicCache}
     * and a {@link TotalCache} (shared by every monotonic counter and cached total, as across nodes), an {@link ObservationRegistry} (flushes, recounts and
     * combined writes become timers and spans), then each {@link CounterServiceBuilderCustomizer}.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(CounterStore.class)
    CounterService counterService(CounterStore counterStore, CountersProperties properties, Environment environment,
            CountersResilience resilience, @CountersClock ObjectProvider<Clock> clock, ObjectProvider<MonotonicCache> monotonicCache,
            ObjectProvider<TotalCache> totalCache, ObjectProvider<ObservationRegistry> observations,
            ObjectProvider<CounterServiceBuilderCustomizer> customizers) {
        SharedCaches cache = SharedCaches.of(monotonicCache.getIfUnique(), totalCache.getIfUnique());
        CounterServiceBuilder builder = CounterService.builder(counterStore)
                .defaultStrategy(properties.defaultFactory(cache))
                .threadFactory(threadFactory(environment))
                .retryRegistry(resilience.retries())
                .circuitBreakerRegistry(resilience.circuitBreakers());
        clock.ifUnique(builder::clock);
        observations.ifUnique(builder::observationRegistry);
        if (properties.keyRetention() != null) {
            builder.keyRetention(properties.keyRetention());
        }
        properties.counters().forEach((nameOrPattern, rule) -> {
            builder.strategy(nameOrPattern, properties.factory(nameOrPattern, cache));
            rule.windows().ifPresent(windows -> builder.windows(nameOrPattern, windows));
            if (rule.expireAfterIdle() != null) {
                builder.expireAfterIdle(nameOrPattern, rule.expireAfterIdle());
            }
        });
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(CounterService.class)
    CountersLifecycle countersLifecycle(CounterService counterService, CountersProperties properties,
            ApplicationContext context) {
        return new CountersLifecycle(counterService, properties.shutdownTimeout(), context);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(CounterStore.class)
    SequenceService sequenceService(CounterStore counterStore, CountersProperties properties,
            CountersResilience resilience, ObjectProvider<ObservationRegistry> observations) {
        SequenceServiceBuilder builder = SequenceService.builder(counterStore).retryRegistry(resilience.retries());
        observations.ifUnique(builder::observationRegistry);
        properties.sequences().forEach((nameOrPattern, sequence) -> builder.sequence(nameOrPattern, sequence.settings()));
        return builder.build();
    }

    /**
     * Virtual threads when the application enabled them ({@code spring.threads.virtual.enabled}) on Java 21+, as Boot
     * does; daemon platform threads otherwise (and on Java 17).
     */
    static ThreadFactory threadFactory(Environment environment) {
        if (Threading.VIRTUAL.isActive(environment)) {
            return new VirtualThreadTaskExecutor("counters-").getVirtualThreadFactory();
        }
        CustomizableThreadFactory platform = new CustomizableThreadFactory("counters-");
        platform.setDaemon(true);
        return platform;
    }
}
