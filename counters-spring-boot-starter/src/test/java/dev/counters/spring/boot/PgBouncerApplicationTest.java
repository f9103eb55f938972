package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.EmbeddedPostgreSql;
import dev.counters.jdbc.testing.PgBouncer;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * An application whose DataSource goes through PgBouncer in transaction mode (Debian's, started by the test): its node
 * rule claims with a lease there, or with a session lock on a direct connection of counters' own.
 */
class PgBouncerApplicationTest {

    private static PgBouncer bouncer;

    private final String prefix =
            "g" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withPropertyValues(
                        "spring.datasource.url=" + bouncer.jdbcUrl() + "?prepareThreshold=0",
                        "spring.datasource.username=" + EmbeddedPostgreSql.USER,
                        "counters.jdbc.table-prefix=" + prefix,
                        "counters.jdbc.initialize-schema=always",
                        "counters.default-strategy=node",
                        "counters.node.id=" + prefix + "n")
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class));
    }

    @BeforeAll
    static void start() {
        bouncer = PgBouncer.transactionMode(4);
    }

    @AfterAll
    static void stop() {
        bouncer.close();
    }

    @Test
    void onTheApplicationsPoolThroughPgBouncerTheNodeIdIsALease() {
        runner().run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            counters.increment("visits");
            assertThat(counters.get("visits")).isEqualTo(1);
            assertThat(context.getBean(JooqCounterStore.class).sessionLockConnections())
                    .isZero();
        });
    }

    @Test
    void onADirectPoolOfCountersOwnTheNodeIdIsASessionLock() {
        runner().withPropertyValues(
                        "counters.datasource.url=" + EmbeddedPostgreSql.shared().jdbcUrl(),
                        "counters.datasource.username=" + EmbeddedPostgreSql.USER)
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("visits");
                    assertThat(counters.get("visits")).isEqualTo(1);
                    assertThat(context.getBean(JooqCounterStore.class).sessionLockConnections())
                            .isEqualTo(1);
                });
    }
}
