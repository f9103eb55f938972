package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Counters take their clock only from a bean marked {@link CountersClock} or from a customizer: the application's
 * own {@code Clock} bean, fixed in its tests, must not freeze leases, expiries and windows.
 */
class ClockTest {

    private static final Instant FIXED = Instant.parse("2001-02-03T04:05:06Z");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("spring.datasource.generate-unique-name=true", "counters.default-strategy=node")
            .withConfiguration(
                    AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class));

    @Test
    void theApplicationsUnmarkedClockIsIgnored() {
        runner.withUserConfiguration(ApplicationClock.class).run(context -> {
            Instant before = Instant.now();
            assertThat(leaseExpiry(context))
                    .as("timed by the system clock, not the application's fixed one")
                    .isAfter(before);
        });
    }

    @Test
    void aClockMarkedForCountersIsUsedBesideTheApplicationsOwn() {
        runner.withUserConfiguration(ApplicationClock.class, FixedCountersClock.class)
                .run(context -> assertThat(leaseExpiry(context)).isBetween(FIXED, FIXED.plusSeconds(60)));
    }

    @Test
    void aCustomizerSetsTheClock() {
        runner.withBean(
                        CounterServiceBuilderCustomizer.class,
                        () -> builder -> builder.clock(Clock.fixed(FIXED, ZoneOffset.UTC)))
                .run(context -> assertThat(leaseExpiry(context)).isBetween(FIXED, FIXED.plusSeconds(60)));
    }

    /** When the node lease taken by the first increment expires. */
    private static Instant leaseExpiry(ConfigurableApplicationContext context) {
        context.getBean(CounterService.class).increment("likes");
        Long expiresAt = new JdbcTemplate(context.getBean(DataSource.class))
                .queryForObject("SELECT MAX(expires_at) FROM counter_leases", Long.class);
        return Instant.ofEpochMilli(expiresAt);
    }

    @Configuration(proxyBeanMethods = false)
    static class ApplicationClock {

        @Bean
        Clock clock() {
            return Clock.fixed(Instant.parse("1999-01-01T00:00:00Z"), ZoneOffset.UTC);
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FixedCountersClock {

        @Bean
        @CountersClock
        Clock countersClock() {
            return Clock.fixed(FIXED, ZoneOffset.UTC);
        }
    }
}
