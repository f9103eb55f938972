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
 * optimisation: it may lag the store by what was missed, for at most its expiry, and never counts an increment twice.
 *
 * <p>For that, every load of a total gets an id ({@link #put}), and an increment adds only to the total of a load it
 * knew of before its write began ({@link #addIfLoaded}): a load made after that may already hold the increment, since
 * it may have read the store after the increment's commit. An increment that knew of no load, or of an older one,
 * adds nothing; the total then lags by it until it expires or is loaded again.
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

    /**
     * Caches {@code total}, just read from the store, for {@code expiry}, in place of any total cached before.
     *
     * @return the id of this load: never 0, and never the id of another load of this cache (for a shared cache, with
     *     overwhelming probability: a random 64-bit id), so that a total lost and loaded again is a new load
     */
    long put(CounterName name, long total, Duration expiry);

    /**
     * Adds {@code delta} to the cached total if it is the one loaded as {@code loadId}, keeping its expiry; a sum
     * outside the 64-bit range drops it. The caller passes the id of a load it learnt of before its increment's write
     * began, or 0 if it knows of none (which matches no load).
     *
     * @return the load id of the total cached now (the one given if it added), to pass with later increments; empty
     *     if no total is cached
     */
    OptionalLong addIfLoaded(CounterName name, long delta, long loadId);

    void remove(CounterName name);
}
