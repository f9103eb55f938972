package dev.counters.internal.service;

import dev.counters.CounterName;
import dev.counters.internal.NamePages;
import dev.counters.internal.NamePattern;
import dev.counters.internal.NameRules;
import dev.counters.spi.CounterStore;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * Removes windows past their retention, for {@link Housekeeping}: for each windowed rule, it pages through the stored
 * names that start with the rule's fixed part ({@link CounterStore#counterNames(String, CounterName, int)}), and
 * deletes each window that ended more than the retention ago, one counter per transaction, through the counter's
 * strategy (a buffered one drops what it holds of it too).
 */
public final class WindowPurge implements Housekeeping.Task {

    /** Windows removed per run at most; the rest go at the next runs. */
    static final int MAX_PER_RUN = 10_000;

    private final CounterStore store;
    private final NameRules<Route> router;
    private final NameRules<Optional<Windows>> windowRules;
    private final Map<String, Windows> rules;

    public WindowPurge(
            CounterStore store,
            NameRules<Route> router,
            NameRules<Optional<Windows>> windowRules,
            Map<String, Windows> rules) {
        this.store = store;
        this.router = router;
        this.windowRules = windowRules;
        this.rules = Map.copyOf(rules);
    }

    @Override
    public int run(Instant horizon) {
        int removed = 0;
        for (Map.Entry<String, Windows> rule : rules.entrySet()) {
            removed += purge(fixedPart(rule.getKey()), rule.getValue(), horizon, MAX_PER_RUN - removed);
            if (removed >= MAX_PER_RUN) {
                break;
            }
        }
        return removed;
    }

    /** The names of a rule's windows start with this: a pattern up to its first wildcard, a name with its mark. */
    static String fixedPart(String nameOrPattern) {
        return NamePattern.isPattern(nameOrPattern)
                ? NamePattern.fixedPart(nameOrPattern)
                : nameOrPattern + Windows.MARK;
    }

    private int purge(String prefix, Windows windows, Instant horizon, int budget) {
        return NamePages.deleteWhere(
                store,
                prefix,
                budget,
                stored -> {
                    Optional<Windows.Window> window = Windows.parse(stored);
                    return window.isPresent()
                            && windowRules
                                            .select(window.get().counter().value())
                                            .orElse(null)
                                    == windows
                            && windows.end(window.get().start())
                                    .plus(windows.settings.retention())
                                    .isBefore(horizon);
                },
                stored -> router.select(
                                Windows.parse(stored).orElseThrow().counter().value())
                        .strategy()
                        .delete(stored));
    }
}
