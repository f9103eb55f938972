package dev.counters.internal.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.contract.CollidingIdsStore;
import dev.counters.contract.Concurrently;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.internal.UniqueIds;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.testing.TestThreads;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Issue 13: every id the library writes is unique across threads and service instances, randomness for load
 * spreading is drawn per thread, and an id found taken is never taken as success.
 */
class IdentityTest {

    /** Runs {@code task} once on each of {@code threads} new threads, one after the other: none touched a random
     * generator before, and none meets another (contention would make the JDK seed some of them by the way). */
    private static void onFreshThreads(int threads, Runnable task) throws InterruptedException {
        for (int i = 0; i < threads; i++) {
            Thread thread = TestThreads.start(task);
            thread.join();
        }
    }

    @Test
    void idsDrawnFromManyFreshThreadsAndInstancesNeverRepeat() throws InterruptedException {
        List<UniqueIds> instances = List.of(UniqueIds.create(), UniqueIds.create(), UniqueIds.create());
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicInteger drawn = new AtomicInteger();
        onFreshThreads(
                50,
                () -> instances.forEach(ids -> {
                    for (int i = 0; i < 100; i++) {
                        seen.add(ids.next());
                        drawn.incrementAndGet();
                    }
                }));
        Concurrently.run(
                8,
                thread -> instances.forEach(ids -> {
                    for (int i = 0; i < 5_000; i++) {
                        seen.add(ids.next());
                        drawn.incrementAndGet();
                    }
                }));
        assertThat(seen).hasSize(drawn.get());
        assertThat(instances.stream().map(UniqueIds::instanceId).distinct()).hasSize(3);
        assertThat(seen)
                .allSatisfy(id -> assertThat(id).hasSizeLessThanOrEqualTo(40).matches("[A-Za-z0-9_.-]+"));
    }

    @Test
    void deltaLogIncrementsFromFreshThreadsAreAllStored() throws InterruptedException {
        CounterStore store = new InMemoryCounterStore();
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(DeltaLogSettings.defaults())
                .build()) {
            onFreshThreads(200, () -> {
                for (int i = 0; i < 20; i++) {
                    counters.increment("fresh");
                }
            });
            assertThat(counters.get("fresh")).isEqualTo(4_000);
        }
    }

    @Test
    void shardChoiceIsRandomInEveryThreadByDefault() throws InterruptedException {
        CounterStore store = new InMemoryCounterStore();
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(ShardedSettings.defaults())
                .build()) {
            onFreshThreads(64, () -> counters.increment("spread"));
            assertThat(counters.get("spread")).isEqualTo(64);
            // 64 draws over 16 shards land on fewer than 8 of them with a probability below 10^-12.
            assertThat(store.cells(CounterName.of("spread")).size()).isGreaterThanOrEqualTo(8);
        }
    }

    @Test
    void aGeneratedNodeIdIsUniqueToTheServiceInstance() {
        CounterStore store = new InMemoryCounterStore();
        try (CounterService first = CounterService.builder(store)
                        .defaultStrategy(NodeSettings.defaults())
                        .build();
                CounterService second = CounterService.builder(store)
                        .defaultStrategy(NodeSettings.defaults())
                        .build()) {
            first.increment("nodes");
            second.increment("nodes");
            assertThat(store.cells(CounterName.of("nodes"))).hasSize(2);
        }
    }

    @Test
    void deltaLogIdsTakenByAnotherInstanceAreWrittenAgainUnderNewOnes() {
        CounterStore shared = new InMemoryCounterStore();
        try (CounterService first = CounterService.builder(new CollidingIdsStore(shared))
                        .defaultStrategy(DeltaLogSettings.defaults())
                        .build();
                CounterService second = CounterService.builder(new CollidingIdsStore(shared))
                        .defaultStrategy(DeltaLogSettings.defaults())
                        .build()) {
            Concurrently.run(8, thread -> {
                CounterService mine = thread % 2 == 0 ? first : second;
                for (int i = 0; i < 1_000; i++) {
                    mine.increment("colliding");
                }
            });
            assertThat(first.get("colliding")).isEqualTo(8_000);
            long conflicts = first.statistics().get(0).activity().conflicts()
                    + second.statistics().get(0).activity().conflicts();
            assertThat(conflicts).as("ids were taken, and noticed").isPositive();
        }
    }

    @Test
    void flushKeysTakenByAnotherInstanceAreWrittenAgainUnderNewOnes() {
        CounterStore shared = new InMemoryCounterStore();
        BufferedSettings eager = BufferedSettings.defaults().withFlushInterval(Duration.ofMillis(1));
        CounterService first = CounterService.builder(new CollidingIdsStore(shared))
                .defaultStrategy(eager)
                .build();
        CounterService second = CounterService.builder(new CollidingIdsStore(shared))
                .defaultStrategy(eager)
                .build();
        Concurrently.run(8, thread -> {
            CounterService mine = thread % 2 == 0 ? first : second;
            for (int i = 0; i < 300; i++) {
                mine.incrementDurably("colliding", 1).join(); // each flush carrying it was acknowledged
            }
        });
        long conflicts = first.statistics().get(0).activity().conflicts()
                + second.statistics().get(0).activity().conflicts();
        first.close();
        second.close();
        assertThat(shared.get(CounterName.of("colliding"))).isEqualTo(2_400);
        assertThat(conflicts).as("keys were taken, and noticed").isPositive();
    }

    /** Fails the first append after applying it (or, with {@code squatter}, after another delta took its id). */
    private static final class UnknownFirstAppend extends ForwardingCounterStore {

        private final @Nullable Long squatter;
        private final AtomicInteger appends = new AtomicInteger();

        UnknownFirstAppend(CounterStore delegate, @Nullable Long squatter) {
            super(delegate);
            this.squatter = squatter;
        }

        @Override
        public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
            if (appends.incrementAndGet() == 1) {
                if (squatter == null) {
                    super.appendDelta(counter, deltaId, delta, now);
                } else {
                    super.appendDelta(counter, deltaId, squatter, now);
                }
                throw new CounterStoreException("connection lost during commit (injected)", null);
            }
            return super.appendDelta(counter, deltaId, delta, now);
        }
    }

    @Test
    void aRetryAfterAnUnknownOutcomeFindingItsOwnDeltaIsAcknowledgedOnce() {
        CounterStore store = new UnknownFirstAppend(new InMemoryCounterStore(), null);
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(DeltaLogSettings.defaults())
                .build()) {
            counters.increment("retried", 5);
            assertThat(counters.get("retried")).isEqualTo(5);
            assertThat(counters.statistics().get(0).activity().conflicts()).isZero();
        }
    }

    @Test
    void aRetryAfterAnUnknownOutcomeFindingAnotherDeltaAppendsUnderANewId() {
        CounterStore store = new UnknownFirstAppend(new InMemoryCounterStore(), 7L);
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(DeltaLogSettings.defaults())
                .build()) {
            counters.increment("retried", 5);
            assertThat(counters.get("retried")).as("the other delta and ours").isEqualTo(12);
            assertThat(counters.statistics().get(0).activity().conflicts()).isEqualTo(1);
        }
    }
}
