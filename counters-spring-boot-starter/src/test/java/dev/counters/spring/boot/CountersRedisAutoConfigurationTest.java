package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.redis.RedisMonotonicCache;
import dev.counters.redis.RedisTotalCache;
import dev.counters.redis.testing.RedisServer;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * With counters-redis and Spring Data Redis, monotonic counters and cached totals are shared on a real Redis: two
 * application instances on one database hand out one sequence between them. The application's own caches and
 * {@code cache: local} win.
 */
class CountersRedisAutoConfigurationTest {

    private static final RedisServer REDIS = RedisServer.shared();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues(
                    "spring.data.redis.host=" + REDIS.host(),
                    "spring.data.redis.port=" + REDIS.port(),
                    "spring.data.redis.timeout=500ms")
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    DataRedisAutoConfiguration.class,
                    CountersRedisAutoConfiguration.class,
                    CountersAutoConfiguration.class,
                    CountersHealthAutoConfiguration.class));

    @Test
    void twoInstancesOnOneDatabaseShareOneMonotonicSequenceAndOneCachedTotal() {
        String prefix = "app" + System.nanoTime() + ":";
        String database = "jdbc:h2:mem:redis" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        ApplicationContextRunner instance = runner.withPropertyValues(
                "spring.datasource.url=" + database,
                "counters.jdbc.initialize-schema=always",
                "counters.redis.key-prefix=" + prefix,
                "counters.counters.[ids.*].strategy=monotonic",
                "counters.counters.[views.*].strategy=sharded",
                "counters.counters.[views.*].sharded.cached-total-expiry=10m");
        instance.run(first -> instance.run(second -> {
            assertThat(first).hasSingleBean(RedisMonotonicCache.class).hasSingleBean(RedisTotalCache.class);
            CounterService a = first.getBean(CounterService.class);
            CounterService b = second.getBean(CounterService.class);
            List<Long> values = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                values.add((i % 2 == 0 ? a : b).incrementAndGet("ids.order", 1));
            }
            assertThat(values)
                    .as("one sequence across both instances")
                    .isSorted()
                    .doesNotHaveDuplicates()
                    .hasSize(50);
            assertThat(new HashSet<>(values)).contains(50L);
            assertThat((String) REDIS.command("HGET", prefix + "monotonic:ids.order", "v"))
                    .isEqualTo("50");

            assertThat(a.get("views.home")).isZero();
            b.increment("views.home", 3);
            assertThat(a.get("views.home"))
                    .as("b's increment, through the shared cached total")
                    .isEqualTo(3);
            assertThat((String) REDIS.command("HGET", prefix + "total:views.home", "v"))
                    .isEqualTo("3");

            Health health = health(first);
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails().get("sharedCaches"))
                    .asInstanceOf(InstanceOfAssertFactories.MAP)
                    .containsEntry("counters-monotonic-cache[ids.*]", "CLOSED");
        }));
    }

    @Test
    void cacheLocalKeepsACounterInItsJvm() {
        String prefix = "local" + System.nanoTime() + ":";
        runner.withPropertyValues(
                        "spring.datasource.generate-unique-name=true",
                        "counters.jdbc.initialize-schema=always",
                        "counters.redis.key-prefix=" + prefix,
                        "counters.default-strategy=monotonic",
                        "counters.monotonic.cache=local")
                .run(context -> {
                    assertThat(context.getBean(CounterService.class).incrementAndGet("ids", 1))
                            .isEqualTo(1);
                    assertThat((String) REDIS.command("EXISTS", prefix + "monotonic:ids"))
                            .isEqualTo("0");
                });
    }

    @Test
    void theApplicationsOwnCachesWinAndWithoutRedisNoneIsDefined() {
        MonotonicCache own = new CustomizationTest.CountingCache();
        runner.withPropertyValues("spring.datasource.generate-unique-name=true")
                .withBean(MonotonicCache.class, () -> own)
                .run(context -> {
                    assertThat(context)
                            .doesNotHaveBean(RedisMonotonicCache.class)
                            .hasSingleBean(RedisTotalCache.class);
                    assertThat(context.getBean(MonotonicCache.class)).isSameAs(own);
                });
        new ApplicationContextRunner()
                .withPropertyValues("spring.datasource.generate-unique-name=true")
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        CountersRedisAutoConfiguration.class,
                        CountersAutoConfiguration.class))
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(MonotonicCache.class)
                        .doesNotHaveBean(TotalCache.class));
    }

    @Test
    void redisDownFailsMonotonicIncrementsFastAndTurnsHealthDown() {
        try (RedisServer doomed = RedisServer.startNew()) {
            runner.withPropertyValues(
                            "spring.data.redis.port=" + doomed.port(),
                            "spring.datasource.generate-unique-name=true",
                            "counters.jdbc.initialize-schema=always",
                            "counters.default-strategy=monotonic")
                    .run(context -> {
                        CounterService counters = context.getBean(CounterService.class);
                        assertThat(counters.incrementAndGet("ids", 1)).isEqualTo(1);
                        doomed.stop();
                        for (int i = 0; i < 6; i++) {
                            org.assertj.core.api.Assertions.assertThatThrownBy(() -> counters.incrementAndGet("ids", 1))
                                    .isInstanceOf(dev.counters.CacheUnavailableException.class);
                        }
                        assertThat(health(context).getStatus())
                                .as("the breaker is open")
                                .isEqualTo(Status.DOWN);
                    });
        }
    }

    private static Health health(ConfigurableApplicationContext context) {
        return context.getBean(CountersHealthIndicator.class).health(true);
    }
}
