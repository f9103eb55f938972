package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceServiceBuilder;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.Strategies;
import dev.counters.strategy.StrategyFactory;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Gives the application a {@link CounterService} on its {@link DataSource}. Every bean backs off when the
 * application defines its own.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class)
@ConditionalOnClass({CounterService.class, JooqCounterStore.class})
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(CountersProperties.class)
public final class CountersAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    CounterStore counterStore(DataSource dataSource, CountersProperties properties) {
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
        return builder.build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    CounterService counterService(CounterStore counterStore, CountersProperties properties) {
        CounterServiceBuilder builder = CounterService.builder(counterStore)
                .defaultStrategy(factory(properties.defaultStrategy(), properties));
        properties.counters().forEach((nameOrPattern, counter) ->
                builder.strategy(nameOrPattern, factory(counter.strategy(), properties)));
        return builder.build();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    SequenceService sequenceService(CounterStore counterStore, CountersProperties properties) {
        SequenceServiceBuilder builder = SequenceService.builder(counterStore);
        properties.sequences().forEach((nameOrPattern, sequence) -> builder.sequence(nameOrPattern, sequence.settings()));
        return builder.build();
    }

    private static StrategyFactory factory(CountersProperties.StrategyType type, CountersProperties properties) {
        return switch (type) {
            case ATOMIC -> Strategies.atomic();
            case OPTIMISTIC -> Strategies.optimistic(properties.optimistic().settings());
            case SHARDED -> Strategies.sharded(properties.sharded().settings());
            case NODE -> Strategies.node(properties.node().settings());
            case BUFFERED -> Strategies.buffered(properties.buffered().settings());
            case DELTA_LOG -> Strategies.deltaLog(properties.deltaLog().settings());
            case MONOTONIC -> Strategies.monotonic(properties.monotonic().settings());
        };
    }
}
