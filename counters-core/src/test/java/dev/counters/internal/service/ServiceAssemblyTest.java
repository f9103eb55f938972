package dev.counters.internal.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterName;
import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.StrategyStatistics;
import dev.counters.WindowSettings;
import dev.counters.internal.Observations;
import dev.counters.internal.Threads;
import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.internal.strategy.StrategyRegistry;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** The service builds one strategy per rule that sets one, and closes every one of them, also when a build fails. */
class ServiceAssemblyTest {

    private final InMemoryCounterStore store = new InMemoryCounterStore();

    private ServiceAssembly.Plan plan(Map<String, CounterRule> rules) {
        return new ServiceAssembly.Plan(
                store,
                AtomicSettings.defaults(),
                rules,
                Map.of(),
                Clock.systemUTC(),
                new SplittableRandom(1),
                Threads.daemon("test-"),
                RetryRegistry.ofDefaults(),
                CircuitBreakerRegistry.ofDefaults(),
                Observations.NONE,
                CounterServiceBuilder.DEFAULT_KEY_RETENTION,
                100,
                null,
                null);
    }

    /** Real strategies, each recorded by its rule and closed into {@code closed}. */
    private static BiFunction<StrategyContext, StrategySettings, CounterStrategy> recording(
            List<String> built, List<String> closed) {
        return (context, settings) -> {
            CounterStrategy strategy = new StrategyRegistry(context, null, null).create(settings);
            built.add(context.rule() + "=" + context.strategy());
            return new ClosingStrategy(strategy, () -> closed.add(context.rule()));
        };
    }

    @Test
    void everyRulesStrategyIsBuiltWithItsNameAndClosedWithTheService() {
        List<String> built = new ArrayList<>();
        List<String> closed = new ArrayList<>();
        Map<String, CounterRule> rules = new LinkedHashMap<>();
        rules.put("orders.*", CounterRule.of(ShardedSettings.defaults()));
        rules.put("views", CounterRule.of(NodeSettings.defaults()));
        rules.put("windowed.*", CounterRule.windowed(WindowSettings.of(Duration.ofMinutes(1))));
        CounterService counters = ServiceAssembly.assemble(plan(rules), recording(built, closed));
        assertThat(built)
                .containsExactly("orders.*=sharded", "views=node", StrategyStatistics.DEFAULT_RULE + "=atomic");
        counters.increment("orders.1", 2);
        assertThat(counters.get("orders.1")).isEqualTo(2);
        counters.close();
        assertThat(closed).containsExactlyInAnyOrder("orders.*", "views", StrategyStatistics.DEFAULT_RULE);
        assertThatThrownBy(() -> counters.increment("x")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aFailedBuildClosesTheStrategiesItAlreadyBuilt() {
        List<String> built = new ArrayList<>();
        List<String> closed = new ArrayList<>();
        BiFunction<StrategyContext, StrategySettings, CounterStrategy> failingOnNode = (context, settings) -> {
            if (settings instanceof NodeSettings) {
                throw new IllegalStateException("no node today");
            }
            return recording(built, closed).apply(context, settings);
        };
        Map<String, CounterRule> rules = new LinkedHashMap<>();
        rules.put("orders.*", CounterRule.of(ShardedSettings.defaults()));
        rules.put("views", CounterRule.of(NodeSettings.defaults()));
        assertThatThrownBy(() -> ServiceAssembly.assemble(plan(rules), failingOnNode))
                .hasMessage("no node today");
        assertThat(closed).containsExactly("orders.*");
    }

    /** A strategy that runs {@code onClose} when closed, and otherwise is {@code delegate}. */
    private record ClosingStrategy(CounterStrategy delegate, Runnable onClose) implements CounterStrategy {

        @Override
        public void increment(CounterName name, long delta) {
            delegate.increment(name, delta);
        }

        @Override
        public long incrementAndGet(CounterName name, long delta) {
            return delegate.incrementAndGet(name, delta);
        }

        @Override
        public long get(CounterName name) {
            return delegate.get(name);
        }

        @Override
        public Map<String, Long> cells(CounterName name) {
            return delegate.cells(name);
        }

        @Override
        public void delete(CounterName name) {
            delegate.delete(name);
        }

        @Override
        public void close() {
            delegate.close();
            onClose.run();
        }
    }
}
