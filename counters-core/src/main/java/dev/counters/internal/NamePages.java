package dev.counters.internal;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/** Deletes stored counters page by page: the purges of ended windows, of counters and of rate limiters alike. */
public final class NamePages {

    /** Names per page of the scan. */
    public static final int PAGE = 1_000;

    private NamePages() {}

    /**
     * Pages through the stored names that start with {@code prefix} and deletes, with {@code delete}, those
     * {@code ended} accepts, at most {@code budget}; how many it deleted.
     */
    public static int deleteWhere(
            CounterStore store, String prefix, int budget, Predicate<CounterName> ended, Consumer<CounterName> delete) {
        int removed = 0;
        @Nullable CounterName after = null;
        while (removed < budget) {
            List<CounterName> page = store.counterNames(prefix, after, PAGE);
            for (CounterName name : page) {
                if (ended.test(name)) {
                    delete.accept(name);
                    if (++removed >= budget) {
                        return removed;
                    }
                }
            }
            if (page.size() < PAGE) {
                return removed;
            }
            after = page.get(page.size() - 1);
        }
        return removed;
    }
}
