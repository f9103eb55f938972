package dev.counters.spi;

import dev.counters.CounterName;
import java.util.OptionalInt;

/**
 * A counter's shard count, which only grows: the {@code sharded} strategy persists it, so that every process spreads
 * its writes over the same shards, and a count one process raised reaches the others.
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
