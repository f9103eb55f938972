package dev.counters.internal.service;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Maxima;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The two families of strategies, which cannot share a counter's data: {@code monotonic} keeps a maximum over shard
 * rows, the counting strategies ({@code atomic}, {@code optimistic}, {@code sharded}, {@code node}, {@code buffered},
 * {@code delta-log}) keep cells and deltas, which each of them sums. A counter moved between counting strategies keeps
 * its value; one moved between the families would read nothing of what the other wrote, so its use is refused, before
 * anything is written: at build for an exact rule, else when its name is first resolved to a handle.
 *
 * <p>The names of the store's monotonic counters (usually a few id generators) are read once, at build, so that a
 * counting counter's check costs no database call (a buffered increment never waits for the database). A monotonic
 * counter's check reads whether it has cells or deltas.
 */
public final class StrategyFamilies {

    private static final int PAGE = 1_000;

    private final CounterStore store;
    private final Set<CounterName> monotonicNames;

    private StrategyFamilies(CounterStore store, Set<CounterName> monotonicNames) {
        this.store = store;
        this.monotonicNames = monotonicNames;
    }

    /** Reads the names of the store's monotonic counters. */
    public static StrategyFamilies of(CounterStore store) {
        Set<CounterName> names = new HashSet<>();
        Optional<Maxima> maxima = store.capability(Maxima.class);
        if (maxima.isPresent()) {
            List<CounterName> page = maxima.get().maximumNames(null, PAGE);
            names.addAll(page);
            while (page.size() == PAGE) {
                page = maxima.get().maximumNames(page.get(PAGE - 1), PAGE);
                names.addAll(page);
            }
        }
        return new StrategyFamilies(store, Set.copyOf(names));
    }

    /**
     * Refuses the counter if the store holds the other family's data for it.
     *
     * @throws IllegalStateException naming the counter, its rule and what to do
     */
    public void check(CounterName name, Route route) {
        boolean monotonic = route.settings().handsOutValues();
        if (monotonic ? store.getAll(List.of(name)).containsKey(name) : monotonicNames.contains(name)) {
            throw new IllegalStateException("Counter '" + name + "' is stored by "
                    + (monotonic
                            ? "a counting strategy (cells or deltas)"
                            : "the monotonic strategy (a maximum over" + " shard rows)")
                    + ", but rule '" + route.rule() + "' now gives it the " + route.strategyName() + " strategy,"
                    + " which would not read that data: its value would change. Keep "
                    + (monotonic ? "a counting strategy" : "the monotonic strategy") + " for it; or, to move it, read"
                    + " its value, delete it (CounterAdmin.delete) and increment it by that value under the new"
                    + " strategy");
        }
    }
}
