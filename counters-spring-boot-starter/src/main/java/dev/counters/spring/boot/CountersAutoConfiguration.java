package dev.counters.spring.boot;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.observation.CountersObservationConvention;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceServiceBuilder;
import dev.counters.spi.CounterStore;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.time.Clock;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadFactory;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.DataSourceBuilder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.metadata.CompositeDataSourcePoolMetadataProvider;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadata;
import org.springframework.boot.jdbc.metadata.DataSourcePoolMetadataProvider;
import org.springframework.boot.sql.init.dependency.DatabaseInitializationDependencyConfigurer;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.scheduling.concurrent.CustomizableThreadFactory;

/**
 * Gives the application a {@link CounterService} and a {@link SequenceService} on a {@link DataSource} (the one marked
 * {@link CountersDataSource}, else a pool of the library's own from {@code counters.datasource.*}, else the
 * application's single or primary one), or in memory ({@code counters.store: memory}).
 * Every bean backs off when the application defines its own; {@code counters.enabled: false} turns it all off. The
 * library's tables are migrated by a {@link CountersSchemaInitializer}, a database initializer to Boot, after the
 * application's Flyway or Liquibase migrations; every store and service, the application's own too, is built after
 * the database's initialization ({@link CountersDependsOnDatabaseInitializationDetector}).
 */
@AutoConfiguration(
        after = DataSourceAutoConfiguration.class,
        afterName = {
            "io.github.resilience4j.springboot.retry.autoconfigure.RetryAutoConfiguration",
            "io.github.resilience4j.springboot.circuitbreaker.autoconfigure.CircuitBreakerAutoConfiguration",
            "io.github.resilience4j.springboot3.retry.autoconfigure.RetryAutoConfiguration",
            "io.github.resilience4j.springboot3.circuitbreaker.autoconfigure.CircuitBreakerAutoConfiguration"
        })
@ConditionalOnClass({CounterService.class, JooqCounterStore.class})
@ConditionalOnBooleanProperty(name = "counters.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CountersProperties.class)
@Import({
    CountersAutoConfiguration.SeparatePool.class,
    CountersAutoConfiguration.JdbcStore.class,
    CountersAutoConfiguration.MemoryStore.class,
    DatabaseInitializationDependencyConfigurer.class
})
@ImportRuntimeHints(CountersRuntimeHints.class)
public final class CountersAutoConfiguration {

    /**
     * A pool of the library's own, from {@code counters.datasource.*} as Boot builds the application's from
     * {@code spring.datasource.*} (Hikari's settings under {@code counters.datasource.hikari}), unless the application
     * marks a DataSource {@link CountersDataSource}. Not a default candidate, so the application's own DataSource, its
     * JdbcTemplate, jOOQ, JPA and Flyway stay on theirs; Boot's health and pool metrics still list it, as
     * {@code countersDataSource} and pool {@code counters}, and the context closes it at shutdown.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "counters.store", havingValue = "jdbc", matchIfMissing = true)
    @ConditionalOnClass(name = "com.zaxxer.hikari.HikariDataSource")
    @ConditionalOnProperty("counters.datasource.url")
    @Conditional(NoMarkedDataSource.class)
    static final class SeparatePool {

        @Bean(defaultCandidate = false)
        @CountersDataSource
        HikariDataSource countersDataSource(CountersProperties properties, Environment environment) {
            CountersProperties.Datasource settings = Objects.requireNonNull(properties.datasource());
            DataSourceBuilder<HikariDataSource> builder =
                    DataSourceBuilder.create().type(HikariDataSource.class).url(Objects.requireNonNull(settings.url()));
            // Unset ones are left out, so that the builder derives the driver from the URL as for spring.datasource.
            Optional.ofNullable(settings.username()).ifPresent(builder::username);
            Optional.ofNullable(settings.password()).ifPresent(builder::password);
            Optional.ofNullable(settings.driverClassName()).ifPresent(builder::driverClassName);
            HikariDataSource dataSource = builder.build();
            dataSource.setPoolName("counters"); // bound afterwards: counters.datasource.hikari.pool-name overrides it
            // Bound here rather than by @ConfigurationProperties, whose metadata would list Hikari's setters
            // undescribed.
            Binder.get(environment).bind("counters.datasource.hikari", Bindable.ofInstance(dataSource));
            return dataSource;
        }
    }

    /** Counters in the application's database. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(name = "counters.store", havingValue = "jdbc", matchIfMissing = true)
    @Conditional(OnCountersDataSource.class)
    static final class JdbcStore {

        /**
         * The library's tables, migrated as {@code counters.jdbc.initialize-schema} says, with the store's settings
         * (a {@link JooqCounterStoreBuilderCustomizer} may change its table prefix).
         */
        @Bean
        @ConditionalOnMissingBean
        CountersSchemaInitializer countersSchemaInitializer(
                ObjectProvider<DataSource> dataSources,
                @CountersDataSource ObjectProvider<DataSource> countersDataSource,
                CountersProperties properties,
                ObjectProvider<DataSourcePoolMetadataProvider> pools,
                ObjectProvider<JooqCounterStoreBuilderCustomizer> customizers) {
            DataSource dataSource = countersDataSource.getIfAvailable(dataSources::getObject);
            return new CountersSchemaInitializer(
                    dataSource,
                    storeBuilder(dataSource, properties, pools, customizers),
                    properties.jdbc().initializeSchema());
        }

        @Bean
        @ConditionalOnMissingBean
        @DependsOnDatabaseInitialization
        CounterStore counterStore(
                ObjectProvider<DataSource> dataSources,
                @CountersDataSource ObjectProvider<DataSource> countersDataSource,
                CountersProperties properties,
                CountersSchemaInitializer schema,
                ObjectProvider<DataSourcePoolMetadataProvider> pools,
                ObjectProvider<JooqCounterStoreBuilderCustomizer> customizers) {
            DataSource dataSource = countersDataSource.getIfAvailable(dataSources::getObject);
            JooqCounterStore store =
                    storeBuilder(dataSource, properties, pools, customizers).build();
            if (!schema.initializes()) {
                store.checkSchema(); // at startup, rather than at the first write that needs a missing table
            }
            return store;
        }

        /** The store's builder from {@code counters.jdbc.*}, then the application's customizers. */
        private static JooqCounterStore.Builder storeBuilder(
                DataSource dataSource,
                CountersProperties properties,
                ObjectProvider<DataSourcePoolMetadataProvider> pools,
                ObjectProvider<JooqCounterStoreBuilderCustomizer> customizers) {
            CountersProperties.Jdbc jdbc = properties.jdbc();
            JooqCounterStore.Builder builder =
                    JooqCounterStore.builder(dataSource).tablePrefix(jdbc.tablePrefix());
            // Its maximum size (HikariCP, DBCP2, Tomcat, UCP), so that node claims never take the last connection.
            DataSourcePoolMetadata pool = new CompositeDataSourcePoolMetadataProvider(
                            pools.orderedStream().toList())
                    .getDataSourcePoolMetadata(dataSource);
            if (pool != null && pool.getMax() != null && pool.getMax() > 0) {
                builder.poolSize(pool.getMax());
            }
            if (jdbc.joinTransactions()) {
                builder.callerTransactions(new SpringCallerTransactions(dataSource));
            }
            Long skipAhead = properties.failover().skipAhead();
            if (skipAhead != null) {
                CounterRules.checked("counters.failover.skip-ahead", () -> builder.failoverSkipAhead(skipAhead));
            }
            customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
            return builder;
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

    /**
     * A DataSource counters can use: the application's only (or primary) one, one marked for counters, or one of its
     * own from {@code counters.datasource.url}.
     */
    static final class OnCountersDataSource extends AnyNestedCondition {

        OnCountersDataSource() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnSingleCandidate(DataSource.class)
        static final class SingleDataSource {}

        @Conditional(MarkedDataSource.class)
        static final class Marked {}

        @ConditionalOnProperty("counters.datasource.url")
        static final class SeparatePoolConfigured {}
    }

    /**
     * A DataSource bean marked {@link CountersDataSource}, a default candidate or not: Boot's {@code @ConditionalOnBean}
     * skips beans declared {@code @Bean(defaultCandidate = false)}, which is how Boot's reference declares a second
     * DataSource.
     */
    static class MarkedDataSource implements ConfigurationCondition {

        @Override
        public ConfigurationPhase getConfigurationPhase() {
            return ConfigurationPhase.REGISTER_BEAN;
        }

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            ConfigurableListableBeanFactory beans = Objects.requireNonNull(context.getBeanFactory());
            for (String name : beans.getBeanNamesForType(DataSource.class, true, false)) {
                if (beans.findAnnotationOnBean(name, CountersDataSource.class, false) != null) {
                    return true;
                }
            }
            return false;
        }
    }

    /** No DataSource bean marked {@link CountersDataSource}: one the application marks comes before a pool of its own. */
    static final class NoMarkedDataSource extends MarkedDataSource {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return !super.matches(context, metadata);
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
    CountersResilience countersResilience(
            ObjectProvider<RetryRegistry> retries, ObjectProvider<CircuitBreakerRegistry> circuitBreakers) {
        return new CountersResilience(
                retries.getIfUnique(RetryRegistry::ofDefaults),
                circuitBreakers.getIfUnique(CircuitBreakerRegistry::ofDefaults));
    }

    /**
     * {@code counters.*} as the services' rules, checked when the context starts: a bad value fails startup, naming
     * the property, before any service is built. A {@code cache: redis} needs the application's shared cache.
     */
    @Bean
    CounterRules counterRules(
            CountersProperties properties,
            ObjectProvider<MonotonicCache> monotonicCache,
            ObjectProvider<TotalCache> totalCache) {
        return CounterRules.of(properties, monotonicCache.getIfUnique() != null, totalCache.getIfUnique() != null);
    }

    /**
     * {@code counters.rate-limits.limiters} as the service's rate-limit rules, checked when the context starts as the
     * {@link CounterRules} are.
     */
    @Bean
    RateLimitRules rateLimitRules(CountersProperties properties) {
        return RateLimitRules.of(properties.rateLimits());
    }

    /**
     * The service, from the {@link CounterRules} and {@link RateLimitRules} of {@code counters.*}, then the application's beans: a {@link Clock}
     * marked {@link CountersClock} (an unmarked one is the application's, and may be fixed in its tests), a
     * {@link MonotonicCache} and a {@link TotalCache} (shared by every monotonic counter and cached total, as across
     * nodes), an {@link ObservationRegistry} (flushes, recounts and combined writes become timers and spans) with a
     * {@link CountersObservationConvention} (to rename or tag them), then each {@link CounterServiceBuilderCustomizer}.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(CounterStore.class)
    CounterService counterService(
            CounterStore counterStore,
            CounterRules rules,
            RateLimitRules rateLimitRules,
            Environment environment,
            CountersResilience resilience,
            @CountersClock ObjectProvider<Clock> clock,
            ObjectProvider<MonotonicCache> monotonicCache,
            ObjectProvider<TotalCache> totalCache,
            ObjectProvider<ObservationRegistry> observations,
            ObjectProvider<CountersObservationConvention> observationConvention,
            ObjectProvider<CounterServiceBuilderCustomizer> customizers) {
        CounterServiceBuilder builder = CounterService.builder(counterStore)
                .defaultStrategy(rules.defaultStrategy())
                .threadFactory(threadFactory(environment))
                .retryRegistry(resilience.retries())
                .circuitBreakerRegistry(resilience.circuitBreakers());
        clock.ifUnique(builder::clock);
        monotonicCache.ifUnique(builder::monotonicCache);
        totalCache.ifUnique(builder::totalCache);
        observations.ifUnique(builder::observationRegistry);
        observationConvention.ifUnique(builder::observationConvention);
        Optional.ofNullable(rules.keyRetention()).ifPresent(builder::keyRetention);
        rules.rules().forEach(builder::rule);
        rateLimitRules.rules().forEach(builder::rateLimit);
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(CounterService.class)
    CountersLifecycle countersLifecycle(CounterService counterService, CounterRules rules, ApplicationContext context) {
        return new CountersLifecycle(counterService, rules.shutdownTimeout(), context);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBean(CounterStore.class)
    SequenceService sequenceService(
            CounterStore counterStore,
            CounterRules rules,
            CountersResilience resilience,
            ObjectProvider<ObservationRegistry> observations,
            ObjectProvider<CountersObservationConvention> observationConvention) {
        SequenceServiceBuilder builder = SequenceService.builder(counterStore).retryRegistry(resilience.retries());
        observations.ifUnique(builder::observationRegistry);
        observationConvention.ifUnique(builder::observationConvention);
        rules.sequences().forEach(builder::sequence);
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
