package dev.counters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.memory.InMemoryCounterStore;
import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.strategy.Strategies;
import dev.counters.strategy.StrategyFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CounterServiceBuilderTest {

    private final InMemoryCounterStore store = new InMemoryCounterStore();

    /** An atomic strategy that reports a type of our choosing, so routing is visible. */
    private static StrategyFactory labelled(String type, List<String> closed) {
        return context -> {
            CounterStrategy atomic = Strategies.atomic().create(context);
            return new CounterStrategy() {
                @Override
                public String type() {
                    return type;
                }

                @Override
                public void increment(CounterName name, long delta) {
                    atomic.increment(name, delta);
                }

                @Override
                public long incrementAndGet(CounterName name, long delta) {
                    return atomic.incrementAndGet(name, delta);
                }

                @Override
                public long get(CounterName name) {
                    return atomic.get(name);
                }

                @Override
                public Map<String, Long> cells(CounterName name) {
                    return atomic.cells(name);
                }

                @Override
                public void delete(CounterName name) {
                    atomic.delete(name);
                }

                @Override
                public void close() {
                    closed.add(type);
                }
            };
        };
    }

    @Test
    void exactNameWinsThenFirstMatchingPatternThenDefault() {
        List<String> closed = new ArrayList<>();
        CounterService counters = CounterService.builder(store)
                .defaultStrategy(labelled("default", closed))
                .strategy("orders.*", labelled("orders-pattern", closed))
                .strategy("orders.eu.*", labelled("never-reached", closed))
                .strategy("orders.special", labelled("exact", closed))
                .strategy("page-?", labelled("single-char", closed))
                .build();

        assertThat(counters.counter("orders.eu.1").strategy()).isEqualTo("orders-pattern");
        assertThat(counters.counter("orders.special").strategy()).isEqualTo("exact");
        assertThat(counters.counter("page-1").strategy()).isEqualTo("single-char");
        assertThat(counters.counter("page-10").strategy()).isEqualTo("default");
        assertThat(counters.counter("ordersX").strategy()).isEqualTo("default");

        counters.close();
        assertThat(closed).containsExactlyInAnyOrder("orders-pattern", "never-reached", "exact", "single-char",
                "default");
        assertThatThrownBy(() -> counters.increment("x")).isInstanceOf(IllegalStateException.class);
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
                .strategy("b.*", labelled("other", new ArrayList<>())).build()) {
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
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("' ' at index 3");
        }
    }

    @Test
    void refusesBadRules() {
        CounterServiceBuilder builder = CounterService.builder(store);
        assertThatThrownBy(() -> builder.strategy("orders/*", Strategies.atomic()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Counter name or pattern 'orders/*' contains '/' at index 6");
        builder.strategy("orders.*", Strategies.atomic());
        assertThatThrownBy(() -> builder.strategy("orders.*", Strategies.atomic()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("A strategy is already set for 'orders.*'");
        assertThatThrownBy(() -> builder.maxCachedHandles(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
