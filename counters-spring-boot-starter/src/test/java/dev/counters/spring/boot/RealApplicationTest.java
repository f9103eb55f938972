package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.NodeIdInUseException;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.SchemaNotInitializedException;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.spi.CounterStore;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * What a real application meets: several DataSources, its own Flyway, a schema nobody created, two instances with
 * one node id, the kill switch and the in-memory store for tests.
 */
@ExtendWith(OutputCaptureExtension.class)
class RealApplicationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class));

    // ---- which DataSource ----

    @Test
    void twoDataSourcesWithoutAPrimaryLeaveCountersOutRatherThanFailingStartup() {
        runner.withUserConfiguration(TwoDataSources.class)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CounterService.class));
    }

    @Test
    void thePrimaryOfTwoDataSourcesIsUsed() {
        runner.withUserConfiguration(TwoDataSources.class, PrimaryDataSource.class)
                .run(context -> {
                    context.getBean(CounterService.class).increment("orders");
                    assertThat(tableExists(context.getBean("primary", DataSource.class), "COUNTER_CELLS"))
                            .isTrue();
                    assertThat(tableExists(context.getBean("first", DataSource.class), "COUNTER_CELLS"))
                            .isFalse();
                });
    }

    @Test
    void theDataSourceMarkedForCountersIsUsed() {
        runner.withUserConfiguration(TwoDataSources.class, MarkedDataSource.class, PrimaryDataSource.class)
                .run(context -> {
                    context.getBean(CounterService.class).increment("orders");
                    assertThat(tableExists(context.getBean("forCounters", DataSource.class), "COUNTER_CELLS"))
                            .isTrue();
                    assertThat(tableExists(context.getBean("primary", DataSource.class), "COUNTER_CELLS"))
                            .isFalse();
                });
        runner.withUserConfiguration(TwoDataSources.class, MarkedDataSource.class)
                .run(context -> {
                    context.getBean(CounterService.class).increment("orders");
                    assertThat(tableExists(context.getBean("forCounters", DataSource.class), "COUNTER_CELLS"))
                            .isTrue();
                });
    }

    // ---- start-up order ----

    @Test
    void startsAfterTheApplicationsOwnFlywayThatCreatesTheCountersTables() {
        runner.withConfiguration(AutoConfigurations.of(FlywayAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.generate-unique-name=true",
                        "spring.flyway.locations=classpath:dev/counters/jdbc/migration/standard",
                        "spring.flyway.placeholders.prefix=",
                        "counters.jdbc.initialize-schema=never",
                        "counters.default-strategy=node")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("downloads", 3);
                    assertThat(counters.get("downloads")).isEqualTo(3);
                    assertThat(tableExists(context.getBean(DataSource.class), "counters_schema_history"))
                            .as("counters did not migrate: the application's Flyway did")
                            .isFalse();
                });
    }

    // ---- start-up failures, as the user sees them ----

    @Test
    void aMissingSchemaNamesThePropertyThatCreatesItAndTheDdl(@TempDir Path directory, CapturedOutput output) {
        // A file database is not embedded, so the default initialize-schema (embedded) does not create the tables.
        String url = "jdbc:h2:file:" + directory.resolve("app") + ";AUTO_SERVER=FALSE";
        assertThatThrownBy(() -> start("spring.datasource.url=" + url))
                .hasRootCauseInstanceOf(SchemaNotInitializedException.class);
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("The counters tables are missing from the database: counter_cells")
                .contains("counters.jdbc.initialize-schema is 'embedded' (the default)")
                .contains("counters.jdbc.initialize-schema: always")
                .contains("classpath:dev/counters/jdbc/migration/standard/");
    }

    @Test
    void aSecondInstanceWithTheSameNodeIdSaysHowToGiveEachItsOwn(@TempDir Path directory, CapturedOutput output) {
        String url = "spring.datasource.url=jdbc:h2:file:" + directory.resolve("shared") + ";AUTO_SERVER=TRUE";
        String[] properties = {
            url, "counters.jdbc.initialize-schema=always", "counters.default-strategy=node", "counters.node.id=web-1"
        };
        try (ConfigurableApplicationContext first = start(properties)) {
            first.getBean(CounterService.class).increment("likes");
            assertThatThrownBy(() -> start(properties)).hasRootCauseInstanceOf(NodeIdInUseException.class);
        }
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("Node id 'web-1' is held by another")
                .contains("counters.node.id: ${HOSTNAME}");
    }

    // ---- switches ----

    @Test
    void countersCanBeTurnedOff() {
        runner.withPropertyValues("spring.datasource.generate-unique-name=true", "counters.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(CounterService.class)
                        .doesNotHaveBean(CounterStore.class)
                        .doesNotHaveBean(SequenceService.class));
    }

    @Test
    void theMemoryStoreNeedsNoDatabase() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CountersAutoConfiguration.class))
                .withPropertyValues("counters.store=memory")
                .run(context -> {
                    assertThat(context.getBean(CounterStore.class)).isInstanceOf(InMemoryCounterStore.class);
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("likes", 2);
                    assertThat(counters.get("likes")).isEqualTo(2);
                    assertThat(context.getBean(SequenceService.class)
                                    .sequence("ids")
                                    .next())
                            .isPositive();
                });
        runner.withPropertyValues("spring.datasource.generate-unique-name=true", "counters.store=memory")
                .run(context ->
                        assertThat(context.getBean(CounterStore.class)).isNotInstanceOf(JooqCounterStore.class));
    }

    private static ConfigurableApplicationContext start(String... properties) {
        SpringApplication application = new SpringApplication(MinimalApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        String[] args = new String[properties.length];
        for (int i = 0; i < properties.length; i++) {
            args[i] = "--" + properties[i];
        }
        return application.run(args);
    }

    /** Whether the database has the table, whatever the case the database folded its name to. */
    static boolean tableExists(DataSource dataSource, String table) throws Exception {
        try (Connection connection = dataSource.getConnection();
                ResultSet tables = connection.getMetaData().getTables(null, null, null, null)) {
            while (tables.next()) {
                if (tables.getString("TABLE_NAME").equalsIgnoreCase(table)) {
                    return true;
                }
            }
            return false;
        }
    }

    private static DataSource h2() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        return dataSource;
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({DataSourceAutoConfiguration.class, CountersAutoConfiguration.class})
    static class MinimalApplication {}

    @Configuration(proxyBeanMethods = false)
    static class TwoDataSources {
        @Bean
        DataSource first() {
            return h2();
        }

        @Bean
        DataSource second() {
            return h2();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryDataSource {
        @Bean
        @Primary
        DataSource primary() {
            return h2();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class MarkedDataSource {
        @Bean
        @CountersDataSource
        DataSource forCounters() {
            return h2();
        }
    }
}
