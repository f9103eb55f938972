package dev.counters.internal.service;

import dev.counters.CounterName;
import dev.counters.internal.ratelimit.RateWindows;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Escrow;
import dev.counters.spi.Maxima;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The three families of strategies, which cannot share a counter's data: {@code monotonic} keeps a maximum over shard
 * rows, {@code bounded} keeps cells with rooms to its bounds (a counting write would ignore them; the bounded strategy
 * checks a counter's cells itself when it first binds it), the counting strategies ({@code atomic}, {@code optimistic}, {@code sharded}, {@code node}, {@code buffered},
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

    /** Tries of each read of names at start. */
    static final int ATTEMPTS_AT_START = 3;

    private final CounterStore store;
    private final Set<CounterName> monotonicNames;
    private final Set<CounterName> boundedNames;

    private StrategyFamilies(CounterStore store, Set<CounterName> monotonicNames, Set<CounterName> boundedNames) {
        this.store = store;
        this.monotonicNames = monotonicNames;
        this.boundedNames = boundedNames;
    }

    /** Reads the names of the store's monotonic and bounded counters. */
    public static StrategyFamilies of(CounterStore store) {
        return new StrategyFamilies(
                store,
                names(store.capability(Maxima.class).map(maxima -> maxima::maximumNames)),
                names(store.capability(Escrow.class).map(escrow -> escrow::boundedNames)).stream()
                        .filter(name -> !name.value().contains(RateWindows.MARK)) // rate limiters' windows
                        .collect(Collectors.toUnmodifiableSet()));
    }

    private static Set<CounterName> names(
            Optional<BiFunction<@Nullable CounterName, Integer, List<CounterName>>> pages) {
        Set<CounterName> names = new HashSet<>();
        if (pages.isPresent()) {
            List<CounterName> page = read(() -> pages.get().apply(null, PAGE));
            names.addAll(page);
            while (page.size() == PAGE) {
                CounterName after = page.get(PAGE - 1);
                page = read(() -> pages.get().apply(after, PAGE));
                names.addAll(page);
            }
        }
        return Set.copyOf(names);
    }

    /**
     * A page read at start, tried up to {@link #ATTEMPTS_AT_START} times: a read is safe to repeat whatever its
     * failure said, and a blip of the database must not stop a start.
     */
    private static List<CounterName> read(Supplier<List<CounterName>> page) {
        for (int attempt = 1; ; attempt++) {
            try {
                return page.get();
            } catch (RuntimeException e) {
                if (attempt == ATTEMPTS_AT_START) {
                    throw e;
                }
            }
        }
    }

    /**
     * Refuses the counter if the store holds the other family's data for it.
     *
     * @throws IllegalStateException naming the counter, its rule and what to do
     */
    public void check(CounterName name, Route route) {
        if (!route.settings().handsOutValues()
                && !route.settings().refusesBeyondBounds()
                && boundedNames.contains(name)) {
            throw new IllegalStateException("Counter '" + name + "' is a bounded counter (rows with rooms to its"
                    + " bounds), but rule '" + route.rule() + "' now gives it the " + route.strategyName()
                    + " strategy,"
                    + " whose writes would ignore its bounds. Keep the bounded strategy for it; or, to move it, read"
                    + " its value, delete it (CounterAdmin.delete) and increment it by that value under the new"
                    + " strategy");
        }
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
