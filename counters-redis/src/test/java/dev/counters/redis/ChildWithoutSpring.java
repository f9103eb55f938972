package dev.counters.redis;

import dev.counters.CounterName;
import dev.counters.redis.testing.RedisClients;
import java.time.Duration;

/**
 * Uses both caches through plain Lettuce in a JVM whose class path has no Spring: the optional dependency must stay
 * optional. Arguments: redisPort.
 */
public final class ChildWithoutSpring {

    private ChildWithoutSpring() {}

    public static void main(String[] args) {
        try {
            Class.forName("org.springframework.data.redis.connection.RedisConnectionFactory");
            throw new AssertionError("Spring Data Redis is on the class path");
        } catch (ClassNotFoundException expected) {
            // as an application without Spring
        }
        try (RedisClients.Lettuce redis =
                RedisClients.lettuce("127.0.0.1", Integer.parseInt(args[0]), RedisClients.TIMEOUT)) {
            CounterName name = CounterName.of("no-spring" + System.nanoTime());
            RedisMonotonicCache monotonic =
                    RedisMonotonicCache.lettuce(redis.connection()).build();
            monotonic.tryLoad(name, () -> 41);
            long value = monotonic.addAndGet(name, 1).orElseThrow().value();
            RedisTotalCache totals = RedisTotalCache.lettuce(redis.connection()).build();
            long loadId = totals.put(name, 5, Duration.ofSeconds(10));
            totals.addIfLoaded(name, 2, loadId);
            System.out.println("VALUE " + value + " TOTAL " + totals.get(name).orElseThrow());
        }
    }
}
