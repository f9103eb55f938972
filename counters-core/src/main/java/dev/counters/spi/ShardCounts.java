package dev.counters.spi;

import dev.counters.CounterName;
import java.util.OptionalInt;

/**
 * A counter's shard count, which only grows: the {@code sharded} strategy keeps it, so that every process writes
 * and reads the same shards, and none is left out of a read after a process raised the count.
 */
public interface ShardCounts {

    /** The counter's persisted shard count, if one was ever stored. */
    OptionalInt shardCount(CounterName counter);

    /**
     * Raises the counter's persisted shard count to at least {@code shards}; it never goes down.
     *
     * @return the shard count stored now (at least {@code shards})
     */
    int growShardCount(CounterName counter, int shards);
}
