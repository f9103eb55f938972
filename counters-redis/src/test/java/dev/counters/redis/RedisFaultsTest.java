package dev.counters.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.CacheUnavailableException;
import dev.counters.CounterService;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.redis.testing.RedisClients;
import dev.counters.redis.testing.RedisServer;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Redis failing under the strategies, on MariaDB: stopped, flushed, too slow. A monotonic counter refuses values
 * (within about the client's timeout) rather than risk repeating one, and resumes above every value it handed out;
 * a sharded counter keeps counting in the database and reads it there.
 */
class RedisFaultsTest {

    private static final JooqStores STORES = JooqStores.shared(TestDatabase.MARIADB);
    /** A failure must come within the command timeout plus the time to report it, on a busy two-core machine. */
    private static final Duration BOUND = RedisClients.TIMEOUT.plusSeconds(1);

    private static RedisServer redis;
    private static RedisClients.Lettuce lettuce;
    private static RedisClients.Spring spring;

    @BeforeAll
    static void start() {
        redis = RedisServer.startNew();
        lettuce = RedisClients.lettuce(redis);
        spring = RedisClients.spring(redis);
    }

    @AfterAll
    static void stop() {
        lettuce.close();
        spring.close();
        redis.close();
    }

    private static MonotonicCache monotonicCache(String flavour) {
        return flavour.equals("lettuce")
                ? RedisMonotonicCache.lettuce(lettuce.connection()).build()
                : RedisMonotonicCache.spring(spring.factory()).build();
    }

    private static CounterService monotonic(MonotonicCache cache) {
        return CounterService.builder(STORES.store())
                .defaultStrategy(MonotonicSettings.defaults())
                .monotonicCache(cache)
                .build();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"lettuce", "spring"})
    void aStoppedRedisFailsIncrementsWithinTheTimeoutAndNoValueRepeatsAfterItsReturn(String flavour) {
        String name = "stopped-" + flavour + System.nanoTime();
        Set<Long> handedOut = new HashSet<>();
        try (CounterService counters = monotonic(monotonicCache(flavour))) {
            for (int i = 0; i < 20; i++) {
                handedOut.add(counters.incrementAndGet(name, 1));
            }
            assertThat(handedOut).hasSize(20);
            redis.stop();
            try {
                for (int i = 0; i < 3; i++) {
                    long started = System.nanoTime();
                    assertThatThrownBy(() -> counters.incrementAndGet(name, 1))
                            .isInstanceOf(CacheUnavailableException.class)
                            .hasMessageContaining("counter '" + name + "'")
                            .hasMessageContaining("127.0.0.1:" + redis.port())
                            .satisfies(e -> assertThat(((CacheUnavailableException) e).mayHaveBeenApplied())
                                    .isFalse());
                    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(BOUND);
                }
            } finally {
                redis.start();
            }
            long resumed = await().atMost(Duration.ofSeconds(20))
                    .ignoreException(CacheUnavailableException.class)
                    .until(() -> counters.incrementAndGet(name, 1), value -> true);
            assertThat(resumed).isGreaterThan(20);
            handedOut.add(resumed);
            for (int i = 0; i < 20; i++) {
                assertThat(handedOut.add(counters.incrementAndGet(name, 1)))
                        .as("a new value")
                        .isTrue();
            }
        }
    }

    @Test
    void aFlushedRedisReloadsTheStoredMaximum() {
        String name = "flushed" + System.nanoTime();
        try (CounterService counters = monotonic(monotonicCache("lettuce"))) {
            long last = 0;
            for (int i = 0; i < 50; i++) {
                last = counters.incrementAndGet(name, 1);
            }
            assertThat(last).isEqualTo(50);
            redis.flushAll();
            assertThat(counters.get(name))
                    .as("loaded from the database's maximum")
                    .isEqualTo(50);
            redis.flushAll();
            assertThat(counters.incrementAndGet(name, 1)).isEqualTo(51);
        }
    }

    /**
     * A cold load finding another loader's claim is not waited out in the cache: the monotonic strategy's retry tries
     * again, its waits adding up to the load timeout, so a loader that died holds the others up no longer than its
     * claim lives. (The strategy's usual 5–500 ms waits would give up after about 2 s.)
     */
    @Test
    void aClaimLeftByALoaderThatDiedIsWaitedOutByTheStrategysRetry() {
        String name = "orphaned" + System.nanoTime();
        MonotonicCache cache = RedisMonotonicCache.lettuce(lettuce.connection())
                .loadTimeout(Duration.ofSeconds(4))
                .build();
        try (CounterService counters = monotonic(cache)) {
            String key = RedisMonotonicCache.DEFAULT_PREFIX + "monotonic:" + name;
            redis.command("HSET", key, "l", "a-loader-that-died");
            redis.command("PEXPIRE", key, "3000");
            assertThat(counters.incrementAndGet(name, 1)).isEqualTo(1);
        }
    }

    /** A claim that never goes: the strategy's attempts run out, and the increment fails as the cache unavailable. */
    @Test
    void aClaimThatNeverGoesFailsTheIncrementAfterTheRetrysAttempts() {
        String name = "stuck" + System.nanoTime();
        MonotonicCache cache = RedisMonotonicCache.lettuce(lettuce.connection())
                .loadTimeout(Duration.ofMillis(200))
                .build();
        try (CounterService counters = monotonic(cache)) {
            redis.command("HSET", RedisMonotonicCache.DEFAULT_PREFIX + "monotonic:" + name, "l", "never-expires");
            assertThatThrownBy(() -> counters.incrementAndGet(name, 1))
                    .isInstanceOf(CacheUnavailableException.class)
                    .hasMessageContaining("after 10 attempts")
                    .hasMessageContaining("another loader")
                    .satisfies(e -> assertThat(((CacheUnavailableException) e).mayHaveBeenApplied())
                            .isFalse());
            assertThatThrownBy(() -> counters.get(name)).isInstanceOf(CacheUnavailableException.class);
        }
    }

    @Test
    void aStalledRedisIsBoundedByTheTimeoutAndResumesWithoutRepeats() throws Exception {
        String name = "stalled" + System.nanoTime();
        try (CounterService counters = monotonic(monotonicCache("lettuce"))) {
            List<Long> handedOut = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                handedOut.add(counters.incrementAndGet(name, 1));
            }
            redis.pause(Duration.ofSeconds(2));
            long started = System.nanoTime();
            assertThatThrownBy(() -> counters.incrementAndGet(name, 1))
                    .isInstanceOf(CacheUnavailableException.class)
                    .hasMessageContaining("timed out");
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took).isBetween(RedisClients.TIMEOUT.minusMillis(100), BOUND);
            // The increment sent during the pause runs after it: that value is skipped, never handed out twice
            long resumed = await().atMost(Duration.ofSeconds(10))
                    .ignoreException(CacheUnavailableException.class)
                    .until(() -> counters.incrementAndGet(name, 1), value -> true);
            assertThat(resumed).isGreaterThan(handedOut.get(handedOut.size() - 1));
        }
    }

    @Test
    void aShardedCounterCountsInTheDatabaseWhileRedisIsDownAndReadsItThere() {
        String name = "sharded" + System.nanoTime();
        ShardedSettings settings =
                ShardedSettings.defaults().withShards(4).withCachedTotalExpiry(Duration.ofMinutes(1));
        Function<RedisClients.Lettuce, TotalCache> totals =
                client -> RedisTotalCache.lettuce(client.connection()).build();
        try (RedisClients.Lettuce other = RedisClients.lettuce(redis);
                CounterService node = CounterService.builder(STORES.store())
                        .defaultStrategy(settings)
                        .totalCache(totals.apply(lettuce))
                        .build();
                CounterService otherNode = CounterService.builder(STORES.anotherStore())
                        .defaultStrategy(settings)
                        .totalCache(totals.apply(other))
                        .build()) {
            node.increment(name, 3);
            assertThat(otherNode.get(name)).isEqualTo(3); // cached now, for a minute
            node.increment(name, 4);
            assertThat(otherNode.get(name))
                    .as("the shared total moved with the other node's increment")
                    .isEqualTo(7);
            assertThat(redis.<String>command("HGET", RedisMonotonicCache.DEFAULT_PREFIX + "total:" + name, "v"))
                    .isEqualTo("7");

            redis.stop();
            try {
                node.increment(name, 5);
                assertThat(node.incrementAndGet(name, 1)).isEqualTo(13);
                long started = System.nanoTime();
                assertThat(otherNode.get(name)).as("read from the database").isEqualTo(13);
                assertThat(otherNode.get(List.of(name))).isEqualTo(Map.of(name, 13L));
                assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(BOUND.multipliedBy(2));
            } finally {
                redis.start();
            }
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(otherNode.get(name)).isEqualTo(13);
                assertThat(redis.<String>command("HGET", RedisMonotonicCache.DEFAULT_PREFIX + "total:" + name, "v"))
                        .as("cached again")
                        .isEqualTo("13");
            });
        }
    }
}
