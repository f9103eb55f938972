package dev.counters;

import dev.counters.internal.CounterStrategy;
import dev.counters.spi.CounterStore;
import java.util.List;

/**
 * The two families of strategies, which cannot share a counter's data: {@code monotonic} keeps a maximum over shard
 * rows, the counting strategies ({@code atomic}, {@code optimistic}, {@code sharded}, {@code node}, {@code buffered},
 * {@code delta-log}) keep cells and deltas, which each of them sums. A counting strategy moved to another keeps the
 * counter's value; a move between the families would not read what the other wrote, so it is refused, before
 * anything is written.
 */
final class StrategyFamilies {

    private StrategyFamilies() {
    }

    /**
     * Refuses the counter if the store holds the other family's data for it: at build for an exact rule, and when a
     * name is first resolved to its handle (pattern rules and the default). One indexed read.
     *
     * @throws IllegalStateException naming the counter, its rule and what to do
     */
    static void check(CounterStore store, CounterName name, String rule, CounterStrategy strategy) {
        boolean monotonic = strategy.type().equals("monotonic");
        boolean otherFamily = monotonic ? store.getAll(List.of(name)).containsKey(name)
                : store.capability(CounterStore.Maxima.class).map(maxima -> maxima.maxOfShards(name).isPresent())
                        .orElse(false);
        if (otherFamily) {
            throw new IllegalStateException("Counter '" + name + "' is stored by "
                    + (monotonic ? "a counting strategy (cells or deltas)" : "the monotonic strategy (a maximum over"
                            + " shard rows)")
                    + ", but rule '" + rule + "' now gives it the " + strategy.type() + " strategy, which would not"
                    + " read that data: its value would change. Keep " + (monotonic ? "a counting strategy"
                            : "the monotonic strategy")
                    + " for it; or, to move it, read its value, delete it (CounterAdmin.delete) and increment it by that"
                    + " value under the new strategy");
        }
    }
}
