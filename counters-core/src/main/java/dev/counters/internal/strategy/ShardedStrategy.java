package dev.counters.internal.strategy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.github.benmanes.caffeine.cache.Ticker;
import dev.counters.CacheUnavailableException;
import dev.counters.CounterName;
import dev.counters.IdempotencyKey;
import dev.counters.internal.Time;
import dev.counters.spi.ShardCounts;
import dev.counters.spi.TotalCache;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongConsumer;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sharded counters ("Sharding Counters", App Engine): a counter is N shard rows; an increment adds to one of them, a
 * read sums them all, so N writers can commit at once where one row admits one. The shard count can grow at runtime (it
 * is persisted, so every node sees it) and never shrinks; reads stay exact throughout because they sum every shard that
 * exists. An optional cached total plays the write-up's memcache ({@link TotalCache}: in this JVM, or shared). Concurrent increments of one shard in this JVM share
 * writes ({@link Combiner}), and a random pick avoids a shard whose write is in flight.
 */
public final class ShardedStrategy extends CellStrategy implements Resharding, CountsMembers {

    private static final Logger LOG = LoggerFactory.getLogger(ShardedStrategy.class);
    private static final String[] CELLS = new String[ShardedSettings.MAX_SHARDS];

    static {
        for (int i = 0; i < CELLS.length; i++) {
            CELLS[i] = "s" + i;
        }
    }

    private final ShardCounts shardCountStore;
    private final ShardedSettings settings;
    private final RandomGenerator random;
    private final LoadingCache<CounterName, Integer> shardCounts;
    private final @Nullable TotalCache totals;
    /**
     * The load of each cached total this JVM last heard of ({@link TotalCache#put}'s id, 0 for none) and when: an
     * increment adds only to the load it knew of before its write began, which cannot hold it already.
     */
    private final Cache<CounterName, KnownLoad> loads =
            Caffeine.newBuilder().maximumSize(100_000).build();

    private final Time time;
    private final Duration totalExpiry;
    private final CacheGuard guard;

    /** {@code totals}: where totals are cached if {@code cachedTotalExpiry} is set; null for one in this JVM. */
    public ShardedStrategy(StrategyContext context, ShardedSettings settings, @Nullable TotalCache totals) {
        super(context, StrategyContext.transientFailures());
        this.shardCountStore = context.require(ShardCounts.class);
        this.settings = settings;
        this.random = context.random();
        this.time = context.time();
        // Expiry on the clock's forward movement only: a clock set back must not keep a stale total for the step.
        Ticker ticker = context.time()::elapsedNanos;
        this.shardCounts = Caffeine.newBuilder()
                .ticker(ticker)
                .expireAfterWrite(settings.shardCountRefresh())
                .maximumSize(100_000)
                .build(this::loadShardCount);
        Duration expiry = settings.cachedTotalExpiry();
        this.totalExpiry = expiry == null ? Duration.ZERO : expiry;
        this.totals = expiry == null ? null : totals != null ? totals : new LocalTotalCache(ticker);
        this.guard = this.totals == null || this.totals instanceof LocalTotalCache
                ? CacheGuard.none()
                : CacheGuard.of(context);
    }

    /** The persisted count, raised to the configured one the first time a node with a larger setting uses it. */
    private int loadShardCount(CounterName name) {
        int persisted = retrying(() -> shardCountStore.shardCount(name)).orElse(0);
        return persisted >= settings.shards()
                ? persisted
                : retrying(() -> shardCountStore.growShardCount(name, settings.shards()));
    }

    @Override
    public void increment(CounterName name, long delta) {
        incrementer(name).accept(delta);
    }

    @Override
    public LongConsumer incrementer(CounterName name) {
        return new HeldShards(name);
    }

    /**
     * A kept handle's increments: it holds the combiners of the counter's shards as it meets them, so that an
     * increment picks a shard and writes through its combiner without a lookup in the combiners' cache.
     */
    private final class HeldShards implements LongConsumer {

        private final CounterName name;
        // A plain field: a thread that misses another's write looks the combiner up, and finds the same one.
        private Combiner[] held = new Combiner[0];

        HeldShards(CounterName name) {
            this.name = name;
        }

        @Override
        public void accept(long delta) {
            int shards = shardCounts.get(name);
            Combiner[] combiners = held;
            if (combiners.length < shards) {
                combiners = Arrays.copyOf(combiners, shards);
                held = combiners;
            }
            int shard = pickShard(name, shards, combiners);
            Combiner combiner = combiners[shard];
            if (combiner == null) {
                combiner = combiner(name, CELLS[shard]);
                combiners[shard] = combiner;
            }
            long loadId = loadBeforeWrite(name);
            combiner.submit(delta, false);
            if (totals != null) {
                cached(() -> learn(name, totals.addIfLoaded(name, delta, loadId)), name);
            }
        }
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        int shards = shardCounts.get(name);
        long loadId = loadBeforeWrite(name);
        long total = addCombined(name, CELLS[pickShard(name, shards, NO_COMBINERS)], delta, true);
        if (totals != null) {
            // Added to the load it knew of; cached as a new load only if none is, so that other nodes' knowledge of
            // the load cached stays current.
            cached(
                    () -> {
                        OptionalLong cached = totals.addIfLoaded(name, delta, loadId);
                        if (cached.isEmpty()) {
                            putCached(name, total);
                        } else {
                            learn(name, cached);
                        }
                    },
                    name);
        }
        return total;
    }

    @Override
    KeyedIncrements.KeyedCellWrite keyedWrite(CounterName name, long delta) {
        return KeyedIncrements.KeyedCellWrite.add(
                name, CELLS[pickShard(name, shardCounts.get(name), NO_COMBINERS)], delta);
    }

    /** A shard picked as for an increment: at random avoiding one whose write is in flight here, or by thread. */
    @Override
    String memberCell(CounterName name) {
        return CELLS[pickShard(name, shardCounts.get(name), NO_COMBINERS)];
    }

    /** As after a keyed increment: the cached total is read again ({@code count()} reads the store anyway). */
    @Override
    void membersChanged(CounterName name) {
        if (totals != null) {
            cached(() -> totals.remove(name), name);
        }
    }

    /** A keyed increment may or may not have added to the total: the cached one is read again. */
    @Override
    public long increment(CounterName name, long delta, IdempotencyKey key, boolean needsValue) {
        long value = super.increment(name, delta, key, needsValue);
        if (totals != null) {
            cached(() -> totals.remove(name), name);
        }
        return value;
    }

    @Override
    public long get(CounterName name) {
        if (totals == null) {
            return super.get(name);
        }
        try {
            OptionalLong cached = guard.call(() -> totals.get(name));
            if (cached.isPresent()) {
                return cached.getAsLong();
            }
        } catch (CacheUnavailableException e) {
            return super.get(name); // the store answers; the cache is reported when written
        }
        return getExact(name);
    }

    @Override
    public long getExact(CounterName name) {
        long total = super.get(name);
        putCached(name, total);
        return total;
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        if (totals == null) {
            return super.getAll(names);
        }
        Map<CounterName, Long> cached;
        try {
            cached = guard.call(() -> totals.getAll(names));
        } catch (CacheUnavailableException e) {
            return super.getAll(names);
        }
        List<CounterName> missing =
                names.stream().filter(name -> !cached.containsKey(name)).toList();
        Map<CounterName, Long> loaded = missing.isEmpty() ? Map.of() : super.getAll(missing);
        loaded.forEach(this::putCached);
        Map<CounterName, Long> values = new LinkedHashMap<>();
        names.forEach(name -> values.put(name, cached.containsKey(name) ? cached.get(name) : loaded.get(name)));
        return values;
    }

    @Override
    public void delete(CounterName name) {
        super.delete(name);
        shardCounts.invalidate(name);
        if (totals != null) {
            cached(() -> totals.remove(name), name);
        }
    }

    /** A load id ({@link TotalCache#put}, 0 for none) and when it was learnt, in {@link Time#nanoTime()}. */
    private record KnownLoad(long id, long learntAt) {}

    /** How long a load learnt of is used without asking the cache again, before an increment's write. */
    private static final long KNOWN_LOAD_NANOS = Duration.ofMillis(100).toNanos();

    /**
     * The load of the counter's cached total known before an increment's write begins, 0 for none: the one learnt
     * from the last call to the cache if recent, else the cache is asked (an addition of nothing), so that an
     * increment after another node's load adds to it. A load made after this call may hold the increment; the
     * increment adds nothing to it.
     */
    private long loadBeforeWrite(CounterName name) {
        if (totals == null) {
            return 0;
        }
        KnownLoad known = loads.getIfPresent(name);
        if (known == null || known.id() == 0 || time.nanoTime() - known.learntAt() > KNOWN_LOAD_NANOS) {
            cached(() -> learn(name, totals.addIfLoaded(name, 0, 0)), name);
            known = loads.getIfPresent(name);
        }
        return known == null ? 0 : known.id();
    }

    /** Caches a total just read from the store, as a new load. */
    private void putCached(CounterName name, long total) {
        if (totals != null) {
            cached(
                    () -> {
                        long loadId = totals.put(name, total, totalExpiry);
                        loads.put(name, new KnownLoad(loadId, time.nanoTime()));
                    },
                    name);
        }
    }

    private void learn(CounterName name, OptionalLong loadId) {
        loads.put(name, new KnownLoad(loadId.orElse(0), time.nanoTime()));
    }

    /**
     * Runs a write to the cached total after the store's write: the increment is stored whatever happens to the
     * cache, so a cache that fails is not thrown; the cached total may then lag for up to its expiry. The guard logs
     * a cache that keeps failing, and then skips it at once.
     */
    private void cached(Runnable write, CounterName name) {
        try {
            guard.run(write);
        } catch (CacheUnavailableException e) {
            LOG.debug(
                    "Cached total of counter '{}' not updated; it may lag the store for up to {}: {}",
                    name,
                    totalExpiry,
                    e.getMessage());
        }
    }

    @Override
    public int growShards(CounterName name, int shards) {
        int checked = settings.withShards(shards).shards(); // checked as configured counts are
        int now = retrying(() -> shardCountStore.growShardCount(name, checked));
        shardCounts.put(name, now);
        return now;
    }

    private static final Combiner[] NO_COMBINERS = new Combiner[0];

    /** A shard of {@code shards}; {@code combiners} are the caller's, for seeing which are busy without a lookup. */
    private int pickShard(CounterName name, int shards, @Nullable Combiner[] combiners) {
        return switch (settings.selection()) {
            case RANDOM -> {
                // A shard whose write is in flight in this JVM makes its callers wait for the commit: try another,
                // twice at most; a busy one still takes the increment, combined with the others waiting there.
                int shard = random.nextInt(shards);
                for (int probe = 0; probe < 2 && busy(name, combiners, shard); probe++) {
                    shard = random.nextInt(shards);
                }
                yield shard;
            }
            // Fibonacci hashing spreads consecutive thread ids over the shards.
            case THREAD -> Math.floorMod((Thread.currentThread().getId() * 0x9E3779B97F4A7C15L) >>> 16, shards);
        };
    }

    private boolean busy(CounterName name, @Nullable Combiner[] combiners, int shard) {
        Combiner combiner = shard < combiners.length ? combiners[shard] : null;
        return combiner != null ? combiner.busy() : busy(name, CELLS[shard]);
    }
}
