package dev.counters.strategy;

/** Factories for the built-in strategies. */
public final class Strategies {

    private Strategies() {
    }

    /**
     * {@code atomic}: one row per counter, changed by a single atomic upsert ({@code value = value + delta}) per
     * increment. Exact and durable when {@code increment} returns; every writer of the same counter waits for the
     * row lock, so one hot counter manages roughly one commit per disk sync.
     */
    public static StrategyFactory atomic() {
        return context -> new AtomicStrategy(context.store());
    }

    /** {@code optimistic} with {@link OptimisticSettings#defaults()}. */
    public static StrategyFactory optimistic() {
        return optimistic(OptimisticSettings.defaults());
    }

    /**
     * {@code optimistic}: read value and version, compare-and-set, retry conflicts with backoff; the concurrent
     * increments of a counter in one JVM share each attempt. Exact and durable when {@code increment} returns.
     */
    public static StrategyFactory optimistic(OptimisticSettings settings) {
        return context -> new OptimisticStrategy(context.store(), settings);
    }

    /** {@code sharded} with {@link ShardedSettings#defaults()}. */
    public static StrategyFactory sharded() {
        return sharded(ShardedSettings.defaults());
    }

    /**
     * {@code sharded}: N rows per counter, one upsert into one of them per increment, reads sum them. Exact and
     * durable when {@code increment} returns (reads from a cached total, when enabled, lag by up to its expiry).
     */
    public static StrategyFactory sharded(ShardedSettings settings) {
        return context -> new ShardedStrategy(context, settings);
    }

    /** {@code node} with {@link NodeSettings#defaults()}. */
    public static StrategyFactory node() {
        return node(NodeSettings.defaults());
    }

    /**
     * {@code node}: one row per application node (G-Counter, or PN-Counter with decrements); a node writes only
     * its own row, reads sum every node's. Exact and durable when {@code increment} returns.
     */
    public static StrategyFactory node(NodeSettings settings) {
        return context -> new NodeStrategy(context, settings);
    }
}
