package dev.counters.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.contract.PauseAfterAdd;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.redis.testing.RedisClients;
import dev.counters.redis.testing.RedisServer;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 9, across nodes on a real redis-server: a node that loads the shared cached total after another
 * node's increment committed, but before that node added it to the cached total, must not see it counted twice.
 */
class RedisCachedTotalNeverAboveTheStoreTest {

    private static final JooqStores STORES = JooqStores.shared(TestDatabase.MARIADB);
    private static final RedisServer REDIS = RedisServer.shared();

    @Test
    void aTotalLoadedOnOneNodeBetweenAnotherNodesCommitAndItsCacheUpdateIsNotAddedToAgain() throws Exception {
        String counter = "interleaved-" + System.nanoTime();
        ShardedSettings settings = ShardedSettings.defaults().withCachedTotalExpiry(Duration.ofMinutes(10));
        PauseAfterAdd paused = new PauseAfterAdd(STORES.store());
        try (RedisClients.Lettuce lettuce = RedisClients.lettuce(REDIS);
                RedisClients.Spring spring = RedisClients.spring(REDIS);
                CounterService writer = CounterService.builder(paused)
                        .defaultStrategy(settings)
                        .totalCache(
                                RedisTotalCache.lettuce(lettuce.connection()).build())
                        .build();
                CounterService reader = CounterService.builder(STORES.anotherStore())
                        .defaultStrategy(settings)
                        .totalCache(RedisTotalCache.spring(spring.factory()).build())
                        .build()) {
            paused.pauseNextAdd();
            CompletableFuture<Void> increment = CompletableFuture.runAsync(() -> writer.increment(counter, 5));
            paused.awaitCommitted();
            assertThat(reader.get(counter))
                    .as("a miss: loaded from the store, with the increment")
                    .isEqualTo(5);
            paused.release();
            increment.get(30, TimeUnit.SECONDS);
            assertThat(reader.get(counter))
                    .as("the shared total, never above the store")
                    .isEqualTo(5);
            assertThat(writer.get(counter)).isEqualTo(5);
            // Increments made after the load add to it, from either node.
            writer.increment(counter, 7);
            reader.increment(counter, 11);
            assertThat(reader.get(counter)).isEqualTo(23);
            assertThat(writer.get(counter)).isEqualTo(23);
            assertThat(reader.get(List.of(counter))).isEqualTo(Map.of(counter, 23L));
            assertThat(reader.getExact(counter)).isEqualTo(23);
        }
    }
}
