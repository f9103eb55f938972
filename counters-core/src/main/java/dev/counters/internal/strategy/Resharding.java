package dev.counters.internal.strategy;

import dev.counters.CounterName;

/** A strategy whose counters have shards, and can be given more ({@link dev.counters.CounterAdmin#growShards}). */
public interface Resharding {

    /**
     * Raises the counter's shard count.
     *
     * @return the shard count now in force
     */
    int growShards(CounterName name, int shards);
}
