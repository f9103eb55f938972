package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.EmbeddedPostgreSql;
import dev.counters.spi.CounterStore;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code counters.failover.skip-ahead} reaches the store, and its skips are counted by a meter. */
class FailoverPropertiesTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class,
                    CountersAutoConfiguration.class,
                    CountersMetricsAutoConfiguration.class));

    @Test
    void onPostgreSqlTheSkipAheadIsTheStoresAndItsSkipsAreMetered() {
        String prefix = "f" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        runner.withPropertyValues(
                        "spring.datasource.url=" + EmbeddedPostgreSql.shared().jdbcUrl(),
                        "spring.datasource.username=" + EmbeddedPostgreSql.USER,
                        "counters.jdbc.initialize-schema=always",
                        "counters.jdbc.table-prefix=" + prefix,
                        "counters.failover.skip-ahead=250")
                .run(context -> {
                    JooqCounterStore store = (JooqCounterStore) context.getBean(CounterStore.class);
                    assertThat(store.skipAhead()).isEqualTo(250);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    CounterName sequence = CounterName.of("invoices");
                    store.reserve(sequence, 10, 1, 1, 1_000_000);
                    try (Connection connection =
                                    context.getBean(DataSource.class).getConnection();
                            Statement statement = connection.createStatement()) {
                        statement.executeUpdate(
                                "update " + prefix + "counter_sequences set history = 'an-earlier-history'");
                    }

                    assertThat(store.reserve(sequence, 10, 1, 1, 1_000_000).first())
                            .isEqualTo(11 + 250);
                    assertThat(registry.get("counters.failover.skips")
                                    .tag("kind", "sequence")
                                    .functionCounter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("counters.failover.skips")
                                    .tag("kind", "maximum")
                                    .functionCounter()
                                    .count())
                            .isZero();
                });
    }

    @Test
    void unsetTheStoresDefaultHoldsAndOnH2ThereIsNoMeter() {
        runner.withPropertyValues("spring.datasource.generate-unique-name=true").run(context -> {
            JooqCounterStore store = (JooqCounterStore) context.getBean(CounterStore.class);
            assertThat(store.skipAhead()).isEqualTo(1_000_000);
            assertThat(context.getBean(MeterRegistry.class)
                            .find("counters.failover.skips")
                            .meters())
                    .as("H2 has no primary to change")
                    .isEmpty();
        });
    }
}
