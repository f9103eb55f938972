package dev.counters.redis;

import dev.counters.redis.testing.RedisClients;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The caches' contract through a plain Lettuce connection. */
class RedisLettuceCachesTest extends RedisCacheContract {

    private static RedisClients.Lettuce lettuce;

    @BeforeAll
    static void connect() {
        lettuce = RedisClients.lettuce(SERVER);
    }

    @AfterAll
    static void close() {
        lettuce.close();
    }

    @Override
    RedisMonotonicCache.Builder monotonicBuilder() {
        return RedisMonotonicCache.lettuce(lettuce.connection());
    }

    @Override
    RedisTotalCache.Builder totalBuilder() {
        return RedisTotalCache.lettuce(lettuce.connection());
    }

    @Override
    RedisAccess access() {
        return new LettuceAccess(lettuce.connection());
    }
}
