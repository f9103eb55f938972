package dev.counters.strategy;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the {@code sharded} strategy: N rows per counter, one upsert into one of them per increment, reads sum
 * them. Exact and durable when {@code increment} returns (reads from a cached total, when enabled, lag by up to its
 * expiry).
 *
 * @param shards the shard count a counter starts with (1 to {@value #MAX_SHARDS}); a counter whose persisted count
 *     is larger keeps the larger one, and a larger configured count grows the persisted one
 * @param selection how an increment picks its shard
 * @param cachedTotalExpiry when not null, reads are served from a local cache of the total that local increments
 * update and that expires this long after it was loaded (the memcache of "Sharding Counters"); null reads the shards
 * every time
 * @param shardCountRefresh how often a node re-reads a counter's persisted shard count, to see growth made elsewhere
 * @param cache where the cached totals are kept, when {@code cachedTotalExpiry} enables them: in the service's shared
 *     cache (given to the builder; it sees the increments of every node) or in this JVM
 */
public record ShardedSettings(
        int shards,
        Selection selection,
        @Nullable Duration cachedTotalExpiry,
        Duration shardCountRefresh,
        CacheChoice cache)
        implements StrategySettings {

    public static final int MAX_SHARDS = 1024;

    public ShardedSettings {
        checkShards(shards);
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(shardCountRefresh, "shardCountRefresh");
        Objects.requireNonNull(cache, "cache");
        if (cachedTotalExpiry != null && (cachedTotalExpiry.isNegative() || cachedTotalExpiry.isZero())) {
            throw new IllegalArgumentException(
                    "sharded cached-total-expiry must be positive, was " + cachedTotalExpiry);
        }
        if (shardCountRefresh.isNegative() || shardCountRefresh.isZero()) {
            throw new IllegalArgumentException(
                    "sharded shard-count-refresh must be positive, was " + shardCountRefresh);
        }
    }

    static int checkShards(int shards) {
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException(
                    "sharded shards must be between 1 and " + MAX_SHARDS + ", was " + shards);
        }
        return shards;
    }

    /** With {@link CacheChoice#DEFAULT}: the shared cache if the builder was given one, else one in this JVM. */
    public ShardedSettings(
            int shards, Selection selection, @Nullable Duration cachedTotalExpiry, Duration shardCountRefresh) {
        this(shards, selection, cachedTotalExpiry, shardCountRefresh, CacheChoice.DEFAULT);
    }

    /** 16 random shards, no cached total, shard counts re-read every 10 seconds. */
    public static ShardedSettings defaults() {
        return new ShardedSettings(16, Selection.RANDOM, null, Duration.ofSeconds(10));
    }

    public ShardedSettings withShards(int shards) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh, cache);
    }

    public ShardedSettings withSelection(Selection selection) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh, cache);
    }

    public ShardedSettings withCachedTotalExpiry(@Nullable Duration cachedTotalExpiry) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh, cache);
    }

    public ShardedSettings withShardCountRefresh(Duration shardCountRefresh) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh, cache);
    }

    public ShardedSettings withCache(CacheChoice cache) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh, cache);
    }

    /** How a sharded increment picks its shard. */
    public enum Selection {
        /** A random shard per increment, as in "Sharding Counters": spreads any load evenly. */
        RANDOM,
        /**
         * A shard fixed per thread: a thread's increments stay on one row, so two threads of this JVM contend only
         * when they share a shard. Best when the threads are long-lived (platform thread pools).
         */
        THREAD
    }

    @Override
    public String name() {
        return "sharded";
    }

    @Override
    public boolean countsMembers() {
        return true;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.sharded(this);
    }
}
