package dev.counters.redis;

import dev.counters.redis.testing.RedisClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The caches' contract through Spring Data Redis's Lettuce connection factory. */
class RedisSpringCachesTest extends RedisCacheContract {

    private static RedisClients.Spring spring;

    @BeforeAll
    static void connect() {
        spring = RedisClients.spring(SERVER);
    }

    @AfterAll
    static void close() {
        spring.close();
    }

    @Override
    RedisMonotonicCache.Builder monotonicBuilder() {
        return RedisMonotonicCache.spring(spring.factory());
    }

    @Override
    RedisTotalCache.Builder totalBuilder() {
        return RedisTotalCache.spring(spring.factory());
    }

    @Override
    RedisAccess access() {
        return new SpringAccess(spring.factory());
    }
}
