package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.CounterStore;
import java.sql.Connection;
import java.sql.ResultSet;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class CountersAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("spring.datasource.generate-unique-name=true")
            .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class));

    @Test
    void zeroConfigurationGivesAWorkingCounterServiceOnTheEmbeddedDatabase() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            counters.increment("page-views");
            counters.increment("page-views", 4);
            assertThat(counters.get("page-views")).isEqualTo(5);
            assertThat(counters.counter("page-views").strategy()).isEqualTo("atomic");
            assertThat(tableExists(context.getBean(DataSource.class), "COUNTER_CELLS")).isTrue();
        });
    }

    @Test
    void tablePrefixNamesTheTables() {
        runner.withPropertyValues("counters.jdbc.table-prefix=app_").run(context -> {
            context.getBean(CounterService.class).increment("likes");
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(tableExists(dataSource, "APP_COUNTER_CELLS")).isTrue();
            assertThat(tableExists(dataSource, "COUNTER_CELLS")).isFalse();
        });
    }

    @Test
    void schemaInitialisationCanBeTurnedOff() {
        runner.withPropertyValues("counters.jdbc.initialize-schema=never").run(context -> {
            assertThat(tableExists(context.getBean(DataSource.class), "COUNTER_CELLS")).isFalse();
            assertThatThrownBy(() -> context.getBean(CounterService.class).get("x"))
                    .isInstanceOf(CounterStoreException.class).hasMessageContaining("COUNTER_CELLS");
        });
    }

    @Test
    void defaultStrategyIsConfigurable() {
        runner.withPropertyValues("counters.default-strategy=atomic").run(context ->
                assertThat(context.getBean(CounterService.class).counter("x").strategy()).isEqualTo("atomic"));
    }

    @Test
    void anUnknownStrategyFailsStartupNamingTheProperty() {
        runner.withPropertyValues("counters.default-strategy=magic").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("magic");
            assertThat(context.getStartupFailure()).hasStackTraceContaining("counters.default-strategy");
        });
    }

    @Test
    void anInvalidTablePrefixFailsStartupWithTheRule() {
        runner.withPropertyValues("counters.jdbc.table-prefix=bad-prefix").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("Table prefix 'bad-prefix' is invalid");
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnBeans() {
        runner.withUserConfiguration(OwnStore.class).run(context -> {
            assertThat(context).hasSingleBean(CounterStore.class);
            assertThat(context.getBean(CounterStore.class)).isInstanceOf(InMemoryCounterStore.class);
            context.getBean(CounterService.class).increment("x");
            assertThat(context.getBean(CounterStore.class).get(dev.counters.CounterName.of("x"))).isEqualTo(1);
        });
        runner.withUserConfiguration(OwnService.class).run(context -> {
            assertThat(context).hasSingleBean(CounterService.class);
            assertThat(context.getBean(CounterService.class)).isSameAs(OwnService.SERVICE);
        });
    }

    @Test
    void withoutADataSourceThereIsNoCounterService() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CountersAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CounterService.class));
    }

    @Test
    void withoutTheJdbcModuleNothingIsConfigured() {
        runner.withClassLoader(new FilteredClassLoader(dev.counters.jdbc.JooqCounterStore.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CounterService.class));
    }

    private static boolean tableExists(DataSource dataSource, String table) throws Exception {
        try (Connection connection = dataSource.getConnection();
                ResultSet tables = connection.getMetaData().getTables(null, null, table, null)) {
            return tables.next();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {
        @Bean
        CounterStore myStore() {
            return new InMemoryCounterStore();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnService {
        static final CounterService SERVICE = CounterService.builder(new InMemoryCounterStore()).build();

        @Bean
        CounterService myCounters() {
            return SERVICE;
        }
    }
}
