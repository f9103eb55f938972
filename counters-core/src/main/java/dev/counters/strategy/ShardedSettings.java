package dev.counters.strategy;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the {@code sharded} strategy.
 *
 * @param shards the shard count a counter starts with (1 to {@value #MAX_SHARDS}); a counter whose persisted count
 *     is larger keeps the larger one, and a larger configured count grows the persisted one
 * @param selection how an increment picks its shard
 * @param cachedTotalExpiry when not null, reads are served from a local cache of the total that local increments
 * update and that expires this long after it was loaded (the memcache of "Sharding Counters"); null reads the shards
 * every time
 * @param shardCountRefresh how often a node re-reads a counter's persisted shard count, to see growth made elsewhere
 */
public record ShardedSettings(int shards, Selection selection, @Nullable Duration cachedTotalExpiry,
        Duration shardCountRefresh) {

    public static final int MAX_SHARDS = 1024;

    public ShardedSettings {
        checkShards(shards);
        Objects.requireNonNull(selection, "selection");
        Objects.requireNonNull(shardCountRefresh, "shardCountRefresh");
        if (cachedTotalExpiry != null && (cachedTotalExpiry.isNegative() || cachedTotalExpiry.isZero())) {
            throw new IllegalArgumentException("sharded cached-total-expiry must be positive, was " + cachedTotalExpiry);
        }
        if (shardCountRefresh.isNegative() || shardCountRefresh.isZero()) {
            throw new IllegalArgumentException("sharded shard-count-refresh must be positive, was " + shardCountRefresh);
        }
    }

    static int checkShards(int shards) {
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException("sharded shards must be between 1 and " + MAX_SHARDS + ", was " + shards);
        }
        return shards;
    }

    /** 16 random shards, no cached total, shard counts re-read every 10 seconds. */
    public static ShardedSettings defaults() {
        return new ShardedSettings(16, Selection.RANDOM, null, Duration.ofSeconds(10));
    }

    public ShardedSettings withShards(int shards) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh);
    }

    public ShardedSettings withSelection(Selection selection) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh);
    }

    public ShardedSettings withCachedTotalExpiry(@Nullable Duration cachedTotalExpiry) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh);
    }

    public ShardedSettings withShardCountRefresh(Duration shardCountRefresh) {
        return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh);
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
}
