package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.contract.PauseAfterAdd;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 31, item 9: a {@code sharded} counter's cached total (in this JVM) lags the store, never leads it. A read that
 * misses the cache and loads the total after an increment's commit, but before the increment adds to the cached
 * total, must not have the increment added a second time.
 */
class CachedTotalNeverAboveTheStoreTest {

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"H2", "MARIADB"})
    void aTotalLoadedBetweenAnIncrementsCommitAndItsCacheUpdateIsNotAddedToAgain(TestDatabase database)
            throws Exception {
        PauseAfterAdd store = new PauseAfterAdd(JooqStores.shared(database).store());
        String counter = "cached-interleaved-" + System.nanoTime();
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(ShardedSettings.defaults().withCachedTotalExpiry(Duration.ofMinutes(10)))
                .build()) {
            store.pauseNextAdd();
            CompletableFuture<Void> increment = CompletableFuture.runAsync(() -> counters.increment(counter, 5));
            store.awaitCommitted();
            assertThat(counters.get(counter))
                    .as("a miss: loaded from the store, with the increment")
                    .isEqualTo(5);
            store.release();
            increment.get(30, TimeUnit.SECONDS);
            assertThat(counters.get(counter))
                    .as("the cached total, never above the store")
                    .isEqualTo(5);
            assertThat(counters.getExact(counter)).isEqualTo(5);
            // From now on the increments know of the load, and add to it.
            counters.increment(counter, 7);
            assertThat(counters.get(counter)).isEqualTo(12);
        }
    }
}
