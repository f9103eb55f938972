package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Where {@code sharded} counters keep cached totals (the memcache of "Sharding Counters"): a total read from the store
 * is kept for a while, and every increment that shares the cache moves it. The default lives in this JVM; a shared
 * one ({@code counters-redis}) gives every node the increments of the others at once. A cached total is a read
 * optimisation: it may lag the store by what was missed, for at most its expiry.
 *
 * <p>Implementations throw {@link dev.counters.CacheUnavailableException} when the cache cannot be reached or does
 * not answer in time; the strategy then reads the store.
 */
public interface TotalCache {

    /** The cached total, if present. */
    OptionalLong get(CounterName name);

    /** The cached totals of those present. */
    default Map<CounterName, Long> getAll(Collection<CounterName> names) {
        Map<CounterName, Long> totals = new LinkedHashMap<>();
        for (CounterName name : names) {
            get(name).ifPresent(total -> totals.put(name, total));
        }
        return totals;
    }

    /** Caches {@code total}, just read from the store, for {@code expiry}. */
    void put(CounterName name, long total, Duration expiry);

    /** Adds {@code delta} to a present total, keeping its expiry; a sum outside the 64-bit range drops it. */
    void addIfPresent(CounterName name, long delta);

    void remove(CounterName name);
}
