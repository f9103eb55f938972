package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Buffered increments pending when the application stops reach the database before its pool closes. */
class ShutdownFlushTest {

    private static ApplicationContextRunner runner(String database) {
        return new ApplicationContextRunner()
                .withPropertyValues(
                        "spring.datasource.url=jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1",
                        "counters.default-strategy=buffered",
                        "counters.buffered.flush-interval=1h")
                .withConfiguration(
                        AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class));
    }

    @Test
    void closingTheContextWritesPendingIncrements() {
        runner("shutdown1").run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            for (int i = 0; i < 1_000; i++) {
                counters.increment("views." + (i % 10));
            }
            assertThat(stored("shutdown1", "views.0"))
                    .as("nothing flushed within the hour")
                    .isZero();
        });
        for (int i = 0; i < 10; i++) {
            assertThat(stored("shutdown1", "views." + i)).isEqualTo(100);
        }
    }

    @Test
    void stoppingTheLifecycleFlushesBeforeAnyBeanIsDestroyed() {
        runner("shutdown2").run(context -> {
            context.getBean(CounterService.class).increment("likes", 5);
            context.getBean(CountersLifecycle.class).stop();
            assertThat(stored("shutdown2", "likes")).isEqualTo(5);
        });
    }

    private static long stored(String database, String counter) {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
        dataSource.setUser("sa");
        return JooqCounterStore.builder(dataSource).build().get(CounterName.of(counter));
    }
}
