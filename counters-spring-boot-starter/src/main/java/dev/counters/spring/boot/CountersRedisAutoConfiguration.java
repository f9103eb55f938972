package dev.counters.spring.boot;

import dev.counters.redis.RedisMonotonicCache;
import dev.counters.redis.RedisTotalCache;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The shared caches on Redis, when {@code counters-redis} is on the classpath and the application has a Spring Data
 * Redis {@link RedisConnectionFactory}: every node then hands out one monotonic sequence, and cached totals carry every
 * node's increments. An application's own {@link MonotonicCache} or {@link TotalCache} bean wins; {@code
 * counters.monotonic.cache=local} and {@code counters.sharded.cache=local} keep a strategy in its JVM.
 */
@AutoConfiguration(
        before = CountersAutoConfiguration.class,
        afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({RedisMonotonicCache.class, RedisConnectionFactory.class})
@ConditionalOnBean(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "counters.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CountersProperties.class)
public final class CountersRedisAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(CountersRedisAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean(MonotonicCache.class)
    RedisMonotonicCache countersRedisMonotonicCache(
            RedisConnectionFactory redis, CountersProperties properties, Environment environment) {
        if (!environment.containsProperty("spring.data.redis.timeout")) {
            // Every increment of a monotonic counter waits on Redis: Lettuce's default would hold it up to 60 s.
            LOG.warn("spring.data.redis.timeout is not set: while Redis does not answer, each monotonic increment"
                    + " waits Lettuce's default of 60 s before it fails. Set it to a bound your callers accept,"
                    + " such as 500ms");
        }
        return RedisMonotonicCache.spring(redis)
                .keyPrefix(properties.redis().keyPrefix())
                .loadTimeout(properties.redis().loadTimeout())
                .build();
    }

    @Bean
    @ConditionalOnMissingBean(TotalCache.class)
    RedisTotalCache countersRedisTotalCache(RedisConnectionFactory redis, CountersProperties properties) {
        return RedisTotalCache.spring(redis)
                .keyPrefix(properties.redis().keyPrefix())
                .build();
    }
}
