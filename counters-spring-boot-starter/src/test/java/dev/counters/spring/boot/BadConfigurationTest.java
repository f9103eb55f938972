package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * Invalid configuration fails startup with a message that names the property and the problem, before any counter is
 * written.
 */
@ExtendWith(OutputCaptureExtension.class)
class BadConfigurationTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            counters.default-strategy=magic                     | counters.default-strategy | magic
            counters.sequences.[a b].mode=gapless               | counters.sequences        | contains ' ' at index 1
            counters.counters.[views].strategy=sharding         | counters.counters         | sharding
            counters.sharded.shards=-1                          | counters.sharded          | shards must be between 1 and 1024, was -1
            counters.sharded.shards=0                           | counters.sharded          | shards must be between 1 and 1024, was 0
            counters.monotonic.chance-to-write=1.5              | counters.monotonic        | chance-to-write must be between 0.0 and 1.0, was 1.5
            counters.monotonic.chance-to-write=-0.1             | counters.monotonic        | chance-to-write must be between 0.0 and 1.0, was -0.1
            counters.buffered.max-pending-counters=-1           | counters.buffered         | max-pending-counters must be >= 1, was -1
            counters.buffered.flush-threshold=-5                | counters.buffered         | flush-threshold must be >= 1, was -5
            counters.buffered.flush-interval=-1s                | counters.buffered         | flush-interval must be positive, was PT-1S
            counters.buffered.flush-lanes=0                     | counters.buffered         | flush-lanes must be between 1 and 16, was 0
            counters.buffered.flush-lanes=17                    | counters.buffered         | flush-lanes must be between 1 and 16, was 17
            counters.optimistic.max-attempts=0                  | counters.optimistic       | max-attempts must be >= 1
            counters.sequences.[orders].block-size=-5           | counters.sequences        | block-size must be >= 1, was -5
            counters.node.id=bad id                             | counters.node             | Node id 'bad id' is invalid
            counters.counters.[bad/name].strategy=atomic        | counters.counters         | contains '/' at index 3
            counters.counters.[views].shards=4                  | counters.counters[views].shards | were left unbound
            counters.shardd.shards=4                            | counters.shardd.shards    | were left unbound
            counters.counters.[views].sharded.shards=4          | counters.counters.[views].sharded | holds settings of the sharded strategy, but these counters use the atomic strategy
            counters.counters.[views].strategy=sharded & counters.counters.[views].sharded.shards=0 | counters.counters.[views].sharded | shards must be between 1 and 1024, was 0
            counters.counters.[o].strategy=optimistic & counters.counters.[o].optimistic.max-backoff=1ms | counters.counters.[o].optimistic | max-backoff (PT0.001S) must not be shorter than initial-backoff (PT0.002S)
            counters.counters.[n].strategy=node & counters.counters.[n].node.lease-ttl=10ms | counters.counters.[n].node | lease-ttl must be at least 1s
            counters.jdbc.table-prefix=x;DROP                   | counters.jdbc             | Table prefix 'x;DROP' is invalid
            counters.key-retention=30s                          | counters.key-retention    | key retention must be at least 1 minute, was PT30S
            counters.failover.skip-ahead=-1                     | counters.failover.skip-ahead | failoverSkipAhead must be >= 0, not -1
            counters.counters.[carts.*].expire-after-idle=10s   | counters.counters.[carts.*].expire-after-idle | must be at least 1 minute
            counters.counters.[ids].strategy=monotonic & counters.counters.[ids].expire-after-idle=1h | counters.counters.[ids].expire-after-idle | monotonic strategy's counters cannot expire
            counters.counters.[api.*].window=7m                 | counters.counters.[api.*].window | window must be a whole number of seconds from 1s to 1d that divides a day
            counters.counters.[api.*].retention=1h              | counters.counters.[api.*].window | set window too
            counters.counters.[api.*].window=1m & counters.counters.[api.*].retention=1h & counters.counters.[api.*].retained-windows=5 | counters.counters.[api.*].window | not both
            counters.counters.[post.*.likes].strategy=monotonic & counters.counters.[post.*.likes].members=true | counters.counters.[post.*.likes].members | The monotonic strategy cannot count members
            counters.counters.[post.*.likes].members=maybe      | counters.counters[post.*.likes].members | maybe
            counters.rate-limits.limiters.[likes].limit=5 per minute | counters.rate-limits.limiters.[likes].limit | 5 per minute' is not a rate limit
            counters.rate-limits.limiters.[likes].limit=5/1m & counters.rate-limits.limiters.[likes].algorithm=leaky | counters.rate-limits.limiters[likes].algorithm | leaky
            counters.rate-limits.on-store-failure=maybe             | counters.rate-limits.on-store-failure | maybe
            """)
    void invalidConfigurationFailsStartupNamingThePropertyAndWritesNothing(
            String property, String prefix, String problem) throws Exception {
        String url = "jdbc:h2:mem:bad" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        new ApplicationContextRunner()
                .withPropertyValues("spring.datasource.url=" + url)
                .withPropertyValues(property.split(" & "))
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining(prefix)
                            .hasStackTraceContaining(problem);
                });
        try (Connection connection = DriverManager.getConnection(url, "sa", "");
                Statement statement = connection.createStatement();
                ResultSet tables = statement.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES "
                        + "WHERE TABLE_SCHEMA = 'PUBLIC' AND TABLE_NAME IN ('COUNTER_CELLS', 'COUNTER_SEQUENCES')")) {
            tables.next();
            if (tables.getInt(1) > 0) {
                try (ResultSet rows = connection
                        .createStatement()
                        .executeQuery(
                                "SELECT (SELECT COUNT(*) FROM COUNTER_CELLS) + (SELECT COUNT(*) FROM COUNTER_SEQUENCES)")) {
                    rows.next();
                    assertThat(rows.getLong(1)).as("rows written").isZero();
                }
            }
        }
    }

    /** What the application prints: Boot's failure analysis of the property, not the mapping bean's stack trace. */
    @Test
    void anInvalidPropertyIsExplainedAsBootExplainsOneThatDoesNotBind(CapturedOutput output) {
        SpringApplication application = new SpringApplication(Application.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        application.setBannerMode(Banner.Mode.OFF);
        assertThatThrownBy(() -> application.run(
                        "--spring.datasource.url=jdbc:h2:mem:analysed" + UUID.randomUUID(),
                        "--counters.counters.[views].strategy=sharded",
                        "--counters.counters.[views].sharded.shards=0"))
                .hasRootCauseInstanceOf(IllegalArgumentException.class);
        assertThat(output.getOut() + output.getErr())
                .contains(
                        "APPLICATION FAILED TO START",
                        "Invalid counters configuration:\n\n    counters.counters.[views].sharded: sharded shards must be"
                                + " between 1 and 1024, was 0",
                        "Update the counters.* properties");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({DataSourceAutoConfiguration.class, CountersAutoConfiguration.class})
    static class Application {}
}
