package dev.counters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.CacheChoice;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CounterServiceBuilderTest {

    private final InMemoryCounterStore store = new InMemoryCounterStore();

    @Test
    void exactNameWinsThenFirstMatchingPatternThenDefault() {
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(NodeSettings.defaults())
                .strategy("orders.*", ShardedSettings.defaults())
                .strategy("orders.eu.*", BufferedSettings.defaults()) // never reached: orders.* comes first
                .strategy("orders.special", OptimisticSettings.defaults())
                .strategy("page-?", DeltaLogSettings.defaults())
                .build()) {
            assertThat(counters.counter("orders.eu.1").strategy()).isEqualTo("sharded");
            assertThat(counters.counter("orders.special").strategy()).isEqualTo("optimistic");
            assertThat(counters.counter("page-1").strategy()).isEqualTo("delta-log");
            assertThat(counters.counter("page-10").strategy()).isEqualTo("node");
            assertThat(counters.counter("ordersX").strategy()).isEqualTo("node");
            assertThat(counters.statistics())
                    .extracting(StrategyStatistics::rule, StrategyStatistics::strategy)
                    .containsExactly(
                            tuple("orders.*", "sharded"),
                            tuple("orders.eu.*", "buffered"),
                            tuple("orders.special", "optimistic"),
                            tuple("page-?", "delta-log"),
                            tuple(StrategyStatistics.DEFAULT_RULE, "node"));
        }
    }

    @Test
    void aRuleSetsEachPartOnceAndCallsForOneNameAddParts() {
        CounterServiceBuilder builder = CounterService.builder(store)
                .strategy("api.*", ShardedSettings.defaults())
                .windows("api.*", WindowSettings.of(Duration.ofMinutes(1)))
                .rule("carts.*", CounterRule.expiringAfterIdle(Duration.ofHours(1)));
        assertThatThrownBy(() -> builder.rule("api.*", CounterRule.of(AtomicSettings.defaults())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A strategy is already set for 'api.*'");
        assertThatThrownBy(() -> builder.expireAfterIdle("carts.*", Duration.ofHours(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("An expiry is already set for 'carts.*'");
        try (CounterService counters = builder.build()) {
            assertThat(counters.counter("api.calls").strategy()).isEqualTo("sharded");
            counters.increment("api.calls", 1); // into the current window: the rule gave it windows
            assertThat(counters.windowed("api.calls").current()).isEqualTo(1);
            assertThat(counters.counter("carts.1").strategy()).isEqualTo("atomic");
        }
    }

    @Test
    void countersThatHandOutValuesCannotExpire() {
        assertThatThrownBy(() -> CounterRule.of(MonotonicSettings.defaults()).withExpireAfterIdle(Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("monotonic strategy's counters cannot expire after idling");
        CounterServiceBuilder builder = CounterService.builder(store).strategy("ids.*", MonotonicSettings.defaults());
        assertThatThrownBy(() -> builder.expireAfterIdle("ids.*", Duration.ofHours(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("monotonic strategy's counters cannot expire after idling");
        builder.expireAfterIdle("ids.1", Duration.ofHours(1)); // its strategy comes from the pattern: seen at build
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Counters 'ids.1' are monotonic and cannot expire after idling");
    }

    @Test
    void aSharedCacheAskedForButNotGivenFailsTheBuildNamingTheRule() {
        CounterServiceBuilder builder = CounterService.builder(store)
                .strategy("ids.*", MonotonicSettings.defaults().withCache(CacheChoice.SHARED));
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("The monotonic strategy of rule 'ids.*' asks for the shared MonotonicCache")
                .hasMessageContaining("CounterServiceBuilder.monotonicCache(...)");
        CounterServiceBuilder sharded = CounterService.builder(store)
                .defaultStrategy(ShardedSettings.defaults()
                        .withCachedTotalExpiry(Duration.ofSeconds(1))
                        .withCache(CacheChoice.SHARED));
        assertThatThrownBy(sharded::build)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("asks for the shared TotalCache")
                .hasMessageContaining("CounterServiceBuilder.totalCache(...)");
    }

    @Test
    void everyStrategyTellsItsTraits() {
        List<StrategySettings> all = List.of(
                AtomicSettings.defaults(),
                OptimisticSettings.defaults(),
                ShardedSettings.defaults(),
                NodeSettings.defaults(),
                BufferedSettings.defaults(),
                DeltaLogSettings.defaults(),
                MonotonicSettings.defaults());
        assertThat(all)
                .extracting(StrategySettings::name)
                .containsExactly("atomic", "optimistic", "sharded", "node", "buffered", "delta-log", "monotonic");
        assertThat(all)
                .filteredOn(StrategySettings::handsOutValues)
                .extracting(StrategySettings::name)
                .containsExactly("monotonic");
        assertThat(all)
                .filteredOn(settings -> !settings.mayExpire() || !settings.takesIdempotencyKeys())
                .extracting(StrategySettings::name)
                .containsExactly("monotonic");
    }

    @Test
    void defaultStrategyIsAtomic() {
        try (CounterService counters = CounterService.builder(store).build()) {
            assertThat(counters.counter("views").strategy()).isEqualTo("atomic");
        }
    }

    @Test
    void serviceReadsManyInRequestedOrderAcrossStrategies() {
        try (CounterService counters = CounterService.builder(store)
                .strategy("b.*", ShardedSettings.defaults())
                .build()) {
            counters.increment("a.1", 1);
            counters.increment("b.1", 2);
            assertThat(counters.incrementAndGet("b.1", 3)).isEqualTo(5);
            assertThat(counters.get(List.of("b.1", "zzz", "a.1")))
                    .containsExactly(Map.entry("b.1", 5L), Map.entry("zzz", 0L), Map.entry("a.1", 1L));
            counters.delete("b.1");
            assertThat(counters.get("b.1")).isZero();
        }
    }

    @Test
    void readingManyValidatesEveryNameFirst() {
        try (CounterService counters = CounterService.builder(store).build()) {
            assertThatThrownBy(() -> counters.get(List.of("ok", "not ok")))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("' ' at index 3");
        }
    }

    @Test
    void refusesBadRules() {
        CounterServiceBuilder builder = CounterService.builder(store);
        assertThatThrownBy(() -> builder.strategy("orders/*", AtomicSettings.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Counter name or pattern 'orders/*' contains '/' at index 6");
        builder.strategy("orders.*", AtomicSettings.defaults());
        assertThatThrownBy(() -> builder.strategy("orders.*", AtomicSettings.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A strategy is already set for 'orders.*'");
        assertThatThrownBy(() -> builder.maxCachedHandles(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
