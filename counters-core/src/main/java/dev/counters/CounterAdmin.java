package dev.counters;

import java.util.Map;

/**
 * Operations for operators and tools rather than for the code that counts: how a counter is stored, and changing
 * its layout. Obtained from {@link CounterService#admin()}; thread-safe.
 */
public interface CounterAdmin {

    /**
     * The counter's stored cells and their values: the one cell of an atomic counter, a sharded counter's shards
     * ({@code s0}, {@code s1}, ...), a node counter's per-node rows ({@code n:<node>:+} and {@code n:<node>:-}).
     */
    Map<String, Long> cells(String name);

    /**
     * Raises a sharded counter's shard count; it is persisted, seen by every node within its shard-count refresh,
     * and never goes down. Reads stay exact while it grows.
     *
     * @return the shard count now in force
     * @throws IllegalStateException if the counter's strategy is not {@code sharded}
     */
    int growShards(String name, int shards);
}
