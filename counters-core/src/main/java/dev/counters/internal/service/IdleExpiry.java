package dev.counters.internal.service;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.CounterName;
import dev.counters.internal.NamePattern;
import dev.counters.internal.NameRules;
import dev.counters.internal.ratelimit.RateWindows;
import dev.counters.spi.CounterStore;
import dev.counters.spi.IdleCounters;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Removes counters not written for their rule's {@code expire-after-idle}, for {@link Housekeeping}. Every write
 * raises a cell's version, so this task remembers each counter's cell versions and when it first saw them; a counter
 * whose versions are still the same that long after is deleted, if they are still the same in the deleting
 * transaction ({@link IdleCounters#deleteIfUnchanged}). Nothing is added to the write path. A counter is
 * removed between the idle time and one housekeeping interval more after its last write; later if the process doing
 * the housekeeping changes (the new one starts its own observation).
 */
public final class IdleExpiry implements Housekeeping.Task {

    static final int PAGE = 1_000;
    /** Pages of names looked at per rule and run; the next run goes on from there, and starts over at the end. */
    static final int MAX_PAGES_PER_RUN = 100;
    /** Counters observed at most: beyond, the least recently seen start their observation again. */
    static final int MAX_OBSERVED = 1_000_000;

    private final CounterStore store;
    private final IdleCounters idle;
    private final NameRules<Route> router;
    private final NameRules<Optional<Windows>> windows;
    private final NameRules<Optional<Duration>> expiries;
    private final Map<String, Duration> rules;
    private final Map<String, @Nullable CounterName> cursors = new HashMap<>();
    private final Cache<CounterName, Seen> seen =
            Caffeine.newBuilder().maximumSize(MAX_OBSERVED).build();

    /** A counter's cell versions, and since when they were seen unchanged. */
    private record Seen(Map<String, Long> versions, Instant since) {}

    /** {@code rules}: the idle time of each name or pattern, in declaration order. */
    public IdleExpiry(
            CounterStore store,
            IdleCounters idle,
            NameRules<Route> router,
            NameRules<Optional<Windows>> windows,
            Map<String, Duration> rules) {
        this.store = store;
        this.idle = idle;
        this.router = router;
        this.windows = windows;
        Map<String, Optional<Duration>> selection = new LinkedHashMap<>();
        rules.forEach((nameOrPattern, idleTime) -> selection.put(nameOrPattern, Optional.of(idleTime)));
        this.expiries = NameRules.of(selection, Optional.empty());
        this.rules = Map.copyOf(rules);
    }

    @Override
    public int run(Instant horizon) {
        int removed = 0;
        for (Map.Entry<String, Duration> rule : rules.entrySet()) {
            removed += expire(rule.getKey(), rule.getValue(), horizon);
        }
        return removed;
    }

    private int expire(String nameOrPattern, Duration idleTime, Instant horizon) {
        String prefix = NamePattern.fixedPart(nameOrPattern);
        int removed = 0;
        for (int pages = 0; pages < MAX_PAGES_PER_RUN; pages++) {
            List<CounterName> page = store.counterNames(prefix, cursors.get(nameOrPattern), PAGE);
            List<CounterName> candidates = new ArrayList<>();
            for (CounterName name : page) {
                if (expires(name, idleTime)) {
                    candidates.add(name);
                }
            }
            Map<CounterName, Map<String, Long>> versions = idle.cellVersions(candidates);
            for (Map.Entry<CounterName, Map<String, Long>> counter : versions.entrySet()) {
                Seen before = seen.getIfPresent(counter.getKey());
                if (before == null || !before.versions().equals(counter.getValue())) {
                    seen.put(counter.getKey(), new Seen(counter.getValue(), horizon)); // written since: start again
                } else if (!before.since().plus(idleTime).isAfter(horizon)) {
                    if (idle.deleteIfUnchanged(counter.getKey(), counter.getValue())) {
                        removed++;
                    }
                    seen.invalidate(counter.getKey());
                }
            }
            if (page.size() < PAGE) {
                cursors.put(nameOrPattern, null); // the end: start over at the next run
                break;
            }
            cursors.put(nameOrPattern, page.get(page.size() - 1));
        }
        return removed;
    }

    /**
     * Whether the counter falls under this rule's expiry: its own rule's (the first that matches it), not a window's
     * (windows go by their retention), and not a monotonic counter's (its values would repeat).
     */
    private boolean expires(CounterName name, Duration idleTime) {
        if (name.value().contains(RateWindows.MARK)) {
            return false; // a rate limiter's window: its purge deletes it once it ended
        }
        if (Windows.parse(name)
                .filter(window -> windows.select(window.counter().value()).isPresent())
                .isPresent()) {
            return false;
        }
        return expiries.select(name.value()).filter(idleTime::equals).isPresent()
                && router.select(name.value()).settings().mayExpire();
    }
}
