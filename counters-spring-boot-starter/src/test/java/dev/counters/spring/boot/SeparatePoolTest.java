package dev.counters.spring.boot;

import static dev.counters.spring.boot.RealApplicationTest.tableExists;
import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.jdbc.testing.EmbeddedPostgreSql;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.health.DataSourceHealthContributorAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.metrics.DataSourcePoolMetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A pool of the library's own: {@code counters.datasource.*} (as {@code spring.datasource.*}) or a DataSource the
 * application marks {@link CountersDataSource}, which comes first; else the application's DataSource.
 */
class SeparatePoolTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("spring.datasource.url=" + h2Url("app"))
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    JdbcTemplateAutoConfiguration.class,
                    CountersAutoConfiguration.class));

    private static String h2Url(String name) {
        return "jdbc:h2:mem:" + name + "-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
    }

    @Test
    void countersDataSourcePropertiesGiveCountersAPoolOfTheirOwnAndLeaveTheApplicationsAlone() {
        runner.withPropertyValues(
                        "counters.datasource.url=" + h2Url("counters"),
                        "counters.datasource.hikari.maximum-pool-size=3")
                .run(context -> {
                    context.getBean(CounterService.class).increment("orders");
                    HikariDataSource counters = context.getBean("countersDataSource", HikariDataSource.class);
                    DataSource application = context.getBean(DataSource.class); // the only default candidate
                    assertThat(application).isNotSameAs(counters);
                    assertThat(context.getBean(JdbcTemplate.class).getDataSource())
                            .isSameAs(application);
                    assertThat(tableExists(counters, "COUNTER_CELLS")).isTrue();
                    assertThat(tableExists(application, "COUNTER_CELLS")).isFalse();
                    assertThat(counters.getPoolName()).isEqualTo("counters");
                    assertThat(counters.getMaximumPoolSize()).isEqualTo(3);
                    context.close();
                    assertThat(counters.isClosed())
                            .as("closed with the context")
                            .isTrue();
                });
    }

    @Test
    void aDataSourceMarkedForCountersComesBeforeCountersDataSourceProperties() {
        runner.withPropertyValues("counters.datasource.url=" + h2Url("counters"))
                .withUserConfiguration(MarkedNonDefaultDataSource.class)
                .run(context -> {
                    context.getBean(CounterService.class).increment("orders");
                    assertThat(context).doesNotHaveBean("countersDataSource");
                    assertThat(tableExists(context.getBean("marked", DataSource.class), "COUNTER_CELLS"))
                            .isTrue();
                    assertThat(tableExists(context.getBean(DataSource.class), "COUNTER_CELLS"))
                            .isFalse();
                });
    }

    @Test
    void aMarkedDataSourceThatIsNoDefaultCandidateIsUsedAsBootsReferenceDeclaresASecondOne() {
        runner.withUserConfiguration(MarkedNonDefaultDataSource.class).run(context -> {
            context.getBean(CounterService.class).increment("orders");
            assertThat(tableExists(context.getBean("marked", DataSource.class), "COUNTER_CELLS"))
                    .isTrue();
            assertThat(tableExists(context.getBean(DataSource.class), "COUNTER_CELLS"))
                    .isFalse();
        });
    }

    @Test
    void aMarkedDataSourceThatIsNoDefaultCandidateIsUsedBesideTwoOfTheApplicationsWithoutAPrimary() {
        runner.withUserConfiguration(MarkedNonDefaultDataSource.class, RealApplicationTest.TwoDataSources.class)
                .run(context -> {
                    context.getBean(CounterService.class).increment("orders");
                    assertThat(tableExists(context.getBean("marked", DataSource.class), "COUNTER_CELLS"))
                            .isTrue();
                });
    }

    @Test
    void countersWritesGoToAPostgreSqlOfTheirOwnWhileTheApplicationStaysOnH2() {
        String prefix = "p" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        runner.withPropertyValues(
                        "counters.datasource.url=" + EmbeddedPostgreSql.shared().jdbcUrl(),
                        "counters.datasource.username=" + EmbeddedPostgreSql.USER,
                        "counters.jdbc.table-prefix=" + prefix,
                        "counters.jdbc.initialize-schema=always")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("orders");
                    counters.increment("orders");
                    assertThat(counters.get("orders")).isEqualTo(2);
                    HikariDataSource pool = context.getBean("countersDataSource", HikariDataSource.class);
                    assertThat(tableExists(pool, prefix + "COUNTER_CELLS")).isTrue();
                    assertThat(pool.getConnection().getMetaData().getDatabaseProductName())
                            .isEqualTo("PostgreSQL");
                    assertThat(tableExists(context.getBean(DataSource.class), prefix + "COUNTER_CELLS"))
                            .isFalse();
                });
    }

    @Test
    void bootsPoolMetricsAndHealthNameTheCountersPool() {
        runner.withPropertyValues(
                        "counters.datasource.url=" + h2Url("counters"),
                        "counters.datasource.hikari.maximum-pool-size=3")
                .withConfiguration(AutoConfigurations.of(
                        MetricsAutoConfiguration.class,
                        CompositeMeterRegistryAutoConfiguration.class,
                        SimpleMetricsExportAutoConfiguration.class,
                        DataSourcePoolMetricsAutoConfiguration.class,
                        HealthContributorAutoConfiguration.class,
                        HealthContributorRegistryAutoConfiguration.class,
                        DataSourceHealthContributorAutoConfiguration.class))
                .run(context -> {
                    context.getBean(CounterService.class).increment("orders");
                    MeterRegistry meters = context.getBean(MeterRegistry.class);
                    assertThat(meters.get("jdbc.connections.max")
                                    .tag("name", "counters")
                                    .gauge()
                                    .value())
                            .isEqualTo(3);
                    assertThat(meters.get("hikaricp.connections.max")
                                    .tag("pool", "counters")
                                    .gauge()
                                    .value())
                            .isEqualTo(3);
                    CompositeHealthContributor db = (CompositeHealthContributor)
                            context.getBean(HealthContributorRegistry.class).getContributor("db");
                    assertThat(db.getContributor("countersDataSource")).isNotNull();
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class MarkedNonDefaultDataSource {
        @Bean(defaultCandidate = false)
        @CountersDataSource
        DataSource marked() {
            JdbcDataSource dataSource = new JdbcDataSource();
            dataSource.setURL(h2Url("marked"));
            return dataSource;
        }
    }
}
