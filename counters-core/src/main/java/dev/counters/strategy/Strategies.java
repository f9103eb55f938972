package dev.counters.strategy;

import dev.counters.internal.strategy.AtomicStrategy;
import dev.counters.internal.strategy.DeltaLogStrategy;
import dev.counters.internal.strategy.LocalMonotonicCache;
import dev.counters.internal.strategy.MonotonicStrategy;
import dev.counters.internal.strategy.NodeStrategy;
import dev.counters.internal.strategy.OptimisticStrategy;
import dev.counters.internal.strategy.ShardedStrategy;
import dev.counters.internal.strategy.buffered.BufferedStrategy;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import java.util.Objects;

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
        return context -> new AtomicStrategy(context);
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
        return context -> new OptimisticStrategy(context, settings);
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
        return context -> new ShardedStrategy(context, settings, null);
    }

    /**
     * {@code sharded} with its cached totals, when {@link ShardedSettings#cachedTotalExpiry()} enables them, in
     * {@code totals}: a cache shared by every node sees the increments of all of them.
     */
    public static StrategyFactory sharded(ShardedSettings settings, TotalCache totals) {
        Objects.requireNonNull(totals, "totals");
        return context -> new ShardedStrategy(context, settings, totals);
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

    /** {@code buffered} with {@link BufferedSettings#defaults()}. */
    public static StrategyFactory buffered() {
        return buffered(BufferedSettings.defaults());
    }

    /**
     * {@code buffered}: increments add to memory and return; a flusher writes every dirty counter in one transaction
     * per interval, exactly once. Not durable when {@code increment} returns (use {@code incrementDurably} to wait
     * for the flush); a crash loses what was pending since the last flush; closing writes everything.
     */
    public static StrategyFactory buffered(BufferedSettings settings) {
        return context -> new BufferedStrategy(context, settings);
    }

    /** {@code delta-log} with {@link DeltaLogSettings#defaults()}. */
    public static StrategyFactory deltaLog() {
        return deltaLog(DeltaLogSettings.defaults());
    }

    /**
     * {@code delta-log}: one row per increment with a unique id, folded into the counter by periodic recounts.
     * Exact, durable when {@code increment} returns, and safe to retry after an unknown outcome.
     */
    public static StrategyFactory deltaLog(DeltaLogSettings settings) {
        return context -> new DeltaLogStrategy(context, settings);
    }

    /** {@code monotonic} with {@link MonotonicSettings#defaults()} and a cache in this JVM. */
    public static StrategyFactory monotonic() {
        return monotonic(MonotonicSettings.defaults());
    }

    /** {@code monotonic} with a cache in this JVM: see {@link #monotonic(MonotonicSettings, MonotonicCache)}. */
    public static StrategyFactory monotonic(MonotonicSettings settings) {
        return context -> new MonotonicStrategy(context, settings, new LocalMonotonicCache());
    }

    /**
     * {@code monotonic}: the current value in a cache with atomic increment, the durable copy the maximum over
     * shard rows written with probability {@code chance-to-write}. Only grows.
     */
    public static StrategyFactory monotonic(MonotonicSettings settings, MonotonicCache cache) {
        return context -> new MonotonicStrategy(context, settings, cache);
    }
}
