package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.EmbeddedPostgreSql;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A pool that node rules' claims would fill fails startup at once (Boot's pool metadata gives the store the pool's
 * size), naming the pool and the size it needs, rather than letting every write wait for the pool's timeout.
 */
class PoolSizeCheckTest {

    private final String prefix =
            "s" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";

    /** Two node rules with ids of their own, so two claims (each a session lock on a connection of its own). */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues(
                    "spring.datasource.generate-unique-name=true",
                    "counters.datasource.url=" + EmbeddedPostgreSql.shared().jdbcUrl(),
                    "counters.datasource.username=" + EmbeddedPostgreSql.USER,
                    "counters.jdbc.table-prefix=" + prefix,
                    "counters.jdbc.initialize-schema=always",
                    "counters.counters.[a.*].strategy=node",
                    "counters.counters.[a.*].node.id=" + prefix + "a",
                    "counters.counters.[b.*].strategy=node",
                    "counters.counters.[b.*].node.id=" + prefix + "b")
            .withConfiguration(
                    AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class));

    @Test
    void aPoolTheClaimsWouldFillFailsStartupNamingThePoolAndTheSizeItNeeds() {
        runner.withPropertyValues("counters.datasource.hikari.maximum-pool-size=2")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("would leave the connection pool HikariDataSource (counters) no "
                                + "connection for the writes: it has at most 2")
                        .hasMessageContaining("at least 3"));
    }

    @Test
    void aPoolWithRoomBesideTheClaimsStarts() {
        runner.withPropertyValues("counters.datasource.hikari.maximum-pool-size=3")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(JooqCounterStore.class).sessionLockConnections())
                            .isEqualTo(2);
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("a.x");
                    counters.increment("b.x");
                    assertThat(counters.get("a.x") + counters.get("b.x")).isEqualTo(2);
                });
    }
}
