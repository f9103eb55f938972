package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.TestDatabase;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceInitializationAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A CounterService the application builds itself from its DataSource is created after the database's initialization,
 * as Boot orders its own JdbcTemplate: after the application's Flyway, the library's schema initializer and the
 * application's SQL init. On H2 and on a real PostgreSQL server (a database of the test's own).
 */
class DatabaseInitializationOrderTest {

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"H2", "POSTGRES"})
    void aServiceTheApplicationBuildsWaitsForTheSchemaAndTheApplicationsInitialization(TestDatabase database) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        FlywayAutoConfiguration.class,
                        DataSourceInitializationAutoConfiguration.class,
                        CountersAutoConfiguration.class))
                .withUserConfiguration(OwnCounterService.class)
                .withPropertyValues(
                        "spring.datasource.url=" + freshDatabase(database),
                        "spring.datasource.username=" + database.user(),
                        "spring.flyway.locations=classpath:dev/counters/spring/boot/init/flyway",
                        "spring.sql.init.mode=always",
                        "spring.sql.init.data-locations=classpath:dev/counters/spring/boot/init/data.sql",
                        "counters.jdbc.initialize-schema=always")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("orders", 2);
                    assertThat(counters.get("orders")).isEqualTo(2);
                });
    }

    /** A database nothing has touched yet, so that the migrations run from the start. */
    private static String freshDatabase(TestDatabase database) {
        String name = "init_" + UUID.randomUUID().toString().replace("-", "");
        if (database == TestDatabase.H2) {
            return "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1";
        }
        new JdbcTemplate(database.dataSource()).execute("CREATE DATABASE " + name);
        return database.jdbcUrl().replaceFirst("/postgres\\?", "/" + name + "?");
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnCounterService {

        /** Fails when built before the library's tables, the application's table or its row exist. */
        @Bean
        CounterService ownCounterService(DataSource dataSource) {
            JooqCounterStore store = JooqCounterStore.builder(dataSource).build();
            store.checkSchema();
            Integer seeds = new JdbcTemplate(dataSource).queryForObject("SELECT COUNT(*) FROM app_seed", Integer.class);
            assertThat(seeds).as("rows the application's SQL init wrote").isEqualTo(1);
            return CounterService.builder(store).build();
        }
    }
}
