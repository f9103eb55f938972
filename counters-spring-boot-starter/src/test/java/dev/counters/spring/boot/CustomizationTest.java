package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.spi.MonotonicCache;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.annotation.Order;
import org.springframework.jdbc.core.JdbcTemplate;

/** The application's own beans and customizers shape the auto-configured services, and counters.* still applies. */
class CustomizationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("spring.datasource.generate-unique-name=true")
            .withConfiguration(
                    AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class));

    @Test
    void customizersRunInOrderAfterTheProperties() {
        runner.withPropertyValues(
                        "counters.default-strategy=delta-log",
                        "counters.counters.[views.*].strategy=sharded",
                        "counters.counters.[views.*].sharded.shards=3")
                .withBean(Second.class)
                .withBean(First.class)
                .withBean(JooqCounterStoreBuilderCustomizer.class, () -> builder -> builder.tablePrefix("custom_"))
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    assertThat(counters.counter("other").strategy())
                            .as("set by the properties, then by the first customizer, last by the second")
                            .isEqualTo("node");
                    counters.increment("views.home");
                    assertThat(counters.counter("views.home").strategy()).isEqualTo("sharded");
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                    assertThat(jdbc.queryForObject("SELECT SUM(cell_value) FROM custom_counter_cells", Long.class))
                            .as("the store customizer's table prefix")
                            .isEqualTo(1);
                });
    }

    @Test
    void theApplicationsClockRetryRegistryAndMonotonicCacheAreUsed() {
        Instant fixed = Instant.parse("2001-02-03T04:05:06Z");
        RetryRegistry retries = RetryRegistry.ofDefaults();
        retries.retry("counters-atomic", RetryConfig.custom().maxAttempts(2).build());
        CountingCache cache = new CountingCache();
        runner.withPropertyValues(
                        "counters.counters.[likes.*].strategy=node", "counters.counters.[ids.*].strategy=monotonic")
                .withBean(
                        Clock.class,
                        () -> Clock.fixed(fixed, ZoneOffset.UTC),
                        definition -> // @CountersClock
                        ((AbstractBeanDefinition) definition)
                                .addQualifier(new AutowireCandidateQualifier(CountersClock.class)))
                .withBean(RetryRegistry.class, () -> retries)
                .withBean(MonotonicCache.class, () -> cache)
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("other");
                    assertThat(retries.retry("counters-atomic").getRetryConfig().getMaxAttempts())
                            .as("the application's instance, as configured")
                            .isEqualTo(2);
                    assertThat(retries.retry("counters-atomic")
                                    .getMetrics()
                                    .getNumberOfSuccessfulCallsWithoutRetryAttempt())
                            .isEqualTo(1);

                    counters.increment("likes.a");
                    JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
                    assertThat(jdbc.queryForObject("SELECT MAX(expires_at) FROM counter_leases", Long.class))
                            .as("the node lease, timed by the application's clock")
                            .isBetween(
                                    fixed.toEpochMilli(), fixed.plusSeconds(60).toEpochMilli());

                    assertThat(counters.incrementAndGet("ids.invoice", 1)).isEqualTo(1);
                    assertThat(cache.calls)
                            .as("calls to the application's cache")
                            .hasPositiveValue();
                });
    }

    @Test
    void aSharedCacheBeanIsUsedUnlessTheSettingsSayLocal() {
        CountingCache cache = new CountingCache();
        runner.withPropertyValues(
                        "counters.default-strategy=monotonic", "counters.counters.[local.*].monotonic.cache=local")
                .withBean(MonotonicCache.class, () -> cache)
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    counters.incrementAndGet("local.a", 1);
                    assertThat(cache.calls).as("a rule that says local").hasValue(0);
                    counters.incrementAndGet("shared.a", 1);
                    assertThat(cache.calls).as("by default, the shared cache").hasPositiveValue();
                });
    }

    @Test
    void aRedisCacheWithoutASharedCacheBeanFailsStartupNamingTheSetting() {
        runner.withPropertyValues("counters.default-strategy=monotonic", "counters.monotonic.cache=redis")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining(
                                "counters.monotonic.cache is redis, but there is no MonotonicCache bean: add"
                                        + " dev.counters:counters-redis"));
        runner.withPropertyValues(
                        "counters.default-strategy=sharded",
                        "counters.sharded.cache=redis",
                        "counters.sharded.cached-total-expiry=1s")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("counters.sharded.cache is redis, but there is no TotalCache bean"));
    }

    @Order(1)
    static final class First implements CounterServiceBuilderCustomizer {

        @Override
        public void customize(dev.counters.CounterServiceBuilder builder) {
            builder.defaultStrategy(OptimisticSettings.defaults());
        }
    }

    @Order(2)
    static final class Second implements CounterServiceBuilderCustomizer {

        @Override
        public void customize(dev.counters.CounterServiceBuilder builder) {
            builder.defaultStrategy(NodeSettings.defaults());
        }
    }

    /** A cache in this JVM that counts its calls. */
    static final class CountingCache implements MonotonicCache {

        final AtomicInteger calls = new AtomicInteger();
        private final ConcurrentHashMap<CounterName, Long> values = new ConcurrentHashMap<>();

        @Override
        public OptionalLong get(CounterName name) {
            calls.incrementAndGet();
            Long value = values.get(name);
            return value == null ? OptionalLong.empty() : OptionalLong.of(value);
        }

        @Override
        public OptionalLong tryLoad(CounterName name, LongSupplier stored) {
            calls.incrementAndGet();
            return OptionalLong.of(values.computeIfAbsent(name, key -> stored.getAsLong()));
        }

        @Override
        public Optional<Added> addAndGet(CounterName name, long delta) {
            calls.incrementAndGet();
            Long sum = values.computeIfPresent(name, (key, value) -> Math.addExact(value, delta));
            return sum == null ? Optional.empty() : Optional.of(new Added(sum, 1));
        }

        @Override
        public boolean holds(CounterName name, long copy) {
            calls.incrementAndGet();
            return values.containsKey(name);
        }

        @Override
        public void remove(CounterName name) {
            calls.incrementAndGet();
            values.remove(name);
        }
    }
}
