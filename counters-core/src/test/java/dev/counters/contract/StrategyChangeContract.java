package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterService;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A counter moved from one strategy to another (issue 31, item 13), through {@link CounterService#builder} with one
 * rule changed between builds, as an application restarted with another configuration: every counting strategy reads
 * what every other one wrote, unfolded delta-log deltas included, also while both write at once (a rolling change);
 * a change between {@code monotonic} and the counting strategies is refused, naming the counter, before anything is
 * written.
 */
public abstract class StrategyChangeContract extends ContractSupport {

    protected StrategyChangeContract(StoreFixture fixture) {
        super(fixture);
    }

    /** The counting strategies; delta-log without recounts, so that its deltas stay unfolded when the rule changes. */
    static final Map<String, StrategySettings> COUNTING = counting();

    private static Map<String, StrategySettings> counting() {
        Map<String, StrategySettings> strategies = new LinkedHashMap<>();
        strategies.put("atomic", AtomicSettings.defaults());
        strategies.put("optimistic", OptimisticSettings.defaults());
        strategies.put("sharded", ShardedSettings.defaults());
        strategies.put("node", NodeSettings.defaults());
        strategies.put("buffered", BufferedSettings.defaults());
        strategies.put(
                "delta-log",
                DeltaLogSettings.defaults()
                        .withRecountAfter(Duration.ofHours(1))
                        .withRecountAtDeltas(1_000_000));
        return Map.copyOf(strategies);
    }

    static Stream<Arguments> countingPairs() {
        List<Arguments> pairs = new ArrayList<>();
        for (String from : List.of("atomic", "optimistic", "sharded", "node", "buffered", "delta-log")) {
            for (String to : List.of("atomic", "optimistic", "sharded", "node", "buffered", "delta-log")) {
                if (!from.equals(to)) {
                    pairs.add(Arguments.of(from, to));
                }
            }
        }
        return pairs.stream();
    }

    static Stream<String> countingStrategies() {
        return Stream.of("atomic", "optimistic", "sharded", "node", "buffered", "delta-log");
    }

    private CounterService service(CounterStore store, String counter, StrategySettings strategy) {
        return CounterService.builder(store).strategy(counter, strategy).build();
    }

    /**
     * The issue's sequence: one counter, the application restarted with another strategy each time, 3 increments
     * each. Before the fix optimistic read 12 of 15 (delta-log's deltas unfolded), and monotonic then read 3.
     */
    @Test
    void theIssuesSequenceKeepsEveryIncrement() {
        String counter = prefix() + "moved";
        long expected = 0;
        for (String strategy :
                List.of("buffered", "sharded", "node", "delta-log", "optimistic", "atomic", "buffered")) {
            try (CounterService counters = service(store(), counter, COUNTING.get(strategy))) {
                counters.increment(counter);
                counters.increment(counter, 1);
                expected += 3;
                assertThat(counters.incrementAndGet(counter, 1))
                        .as("incrementAndGet under %s", strategy)
                        .isEqualTo(expected);
                assertThat(counters.get(counter)).as("get under %s", strategy).isEqualTo(expected);
                assertThat(counters.getExact(counter))
                        .as("getExact under %s", strategy)
                        .isEqualTo(expected);
                assertThat(counters.get(List.of(counter)))
                        .as("get(names) under %s", strategy)
                        .containsEntry(counter, expected);
            }
        }
        assertThatThrownBy(() -> service(store(), counter, MonotonicSettings.defaults()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'" + counter + "'")
                .hasMessageContaining("monotonic");
    }

    /**
     * Every ordered pair of counting strategies: the old and the new configuration run at once on the same counter
     * (two services, as two application instances), each write followed by its service's flush, so that every read,
     * by either, is the exact total; then the new one alone.
     */
    @ParameterizedTest(name = "{0} to {1}")
    @MethodSource("countingPairs")
    void bothStrategiesOfAChangeReadEveryIncrement(String from, String to) {
        String counter = prefix() + "rolling";
        try (CounterService old = service(store(), counter, COUNTING.get(from))) {
            old.increment(counter, 1);
            old.increment(counter, 2);
            old.flush().join();
            try (CounterService changed = service(anotherStore(), counter, COUNTING.get(to))) {
                assertThat(changed.get(counter))
                        .as("%s reads what %s wrote", to, from)
                        .isEqualTo(3);
                assertThat(changed.incrementAndGet(counter, 4)).isEqualTo(7);
                changed.increment(counter, 8);
                changed.flush().join();
                assertThat(old.get(counter))
                        .as("%s reads what %s wrote", from, to)
                        .isEqualTo(15);
                assertThat(old.incrementAndGet(counter, 16)).isEqualTo(31);
                old.flush().join();
                assertThat(changed.incrementAndGet(counter, 32)).isEqualTo(63);
                changed.flush().join();
                assertThat(old.get(List.of(counter))).containsEntry(counter, 63L);
                assertThat(changed.getExact(counter)).isEqualTo(63);
            }
        }
        try (CounterService changed = service(store(), counter, COUNTING.get(to))) {
            assertThat(changed.get(counter)).isEqualTo(63);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("countingStrategies")
    void anExactRuleOfAnotherFamilyIsRefusedAtBuild(String counting) {
        String counted = prefix() + "counted";
        try (CounterService counters = service(store(), counted, COUNTING.get(counting))) {
            counters.increment(counted, 5);
        }
        assertThatThrownBy(() -> service(store(), counted, MonotonicSettings.defaults()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Counter '" + counted + "'")
                .hasMessageContaining("monotonic strategy")
                .hasMessageContaining("delete it");

        String ids = prefix() + "ids";
        try (CounterService counters = service(store(), ids, MonotonicSettings.defaults())) {
            assertThat(counters.incrementAndGet(ids, 1)).isEqualTo(1);
        }
        assertThatThrownBy(() -> service(store(), ids, COUNTING.get(counting)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Counter '" + ids + "'")
                .hasMessageContaining(counting + " strategy")
                .hasMessageContaining("Keep the monotonic strategy");

        // Refused before anything was written: each still reads its value under its own strategy.
        try (CounterService counters = service(store(), counted, COUNTING.get(counting))) {
            assertThat(counters.get(counted)).isEqualTo(5);
        }
        try (CounterService counters = service(store(), ids, MonotonicSettings.defaults())) {
            assertThat(counters.incrementAndGet(ids, 1)).isEqualTo(2);
        }
    }

    @Test
    void aPatternRuleOfAnotherFamilyIsRefusedAtTheCountersFirstUse() {
        String counted = prefix() + "p.counted";
        String ids = prefix() + "p.ids";
        try (CounterService counters = CounterService.builder(store())
                .strategy(ids, MonotonicSettings.defaults())
                .build()) {
            counters.increment(counted, 5);
            counters.increment(ids, 1);
        }
        try (CounterService counters = CounterService.builder(store())
                .strategy(prefix() + "p.*", MonotonicSettings.defaults())
                .build()) {
            assertThatThrownBy(() -> counters.incrementAndGet(counted, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Counter '" + counted + "'")
                    .hasMessageContaining("rule '" + prefix() + "p.*'");
            assertThatThrownBy(() -> counters.get(counted))
                    .as("refused again, not remembered as resolved")
                    .isInstanceOf(IllegalStateException.class);
            assertThat(counters.incrementAndGet(ids, 1))
                    .as("its own family's counter")
                    .isEqualTo(2);
            assertThat(counters.incrementAndGet(prefix() + "p.fresh", 1))
                    .as("a new counter")
                    .isEqualTo(1);
        }
        try (CounterService counters = CounterService.builder(store())
                .defaultStrategy(ShardedSettings.defaults())
                .build()) {
            assertThatThrownBy(() -> counters.increment(ids, 1))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("Counter '" + ids + "'")
                    .hasMessageContaining("(default)");
            assertThat(counters.get(counted))
                    .as("nothing written by the refused calls")
                    .isEqualTo(5);
        }
    }
}
