package dev.counters.strategy;

/**
 * A strategy and its settings: one record per strategy. A rule of the service names one
 * ({@link dev.counters.CounterRule}), and the service builds the strategy from it. The strategies themselves are
 * internal; these records are all an application sees of them.
 *
 * <p>The interface is sealed and its {@link Visitor} has one method per record, so the compiler points at every place a
 * new strategy must be handled (see {@code docs/architecture.md}, "Adding a strategy").
 */
public sealed interface StrategySettings
        permits AtomicSettings,
                OptimisticSettings,
                ShardedSettings,
                NodeSettings,
                BufferedSettings,
                DeltaLogSettings,
                MonotonicSettings,
                BoundedSettings {

    /**
     * The strategy's name in configuration ({@code atomic}, {@code delta-log}). It names the strategy's Resilience4j
     * instances ({@code counters-<name>}), observations and statistics.
     */
    String name();

    /**
     * Whether the counters only grow and hand out each value once ({@code monotonic}). Such a counter never expires
     * after idling (its values would repeat), takes no idempotency keys, and is stored apart from counted ones: a
     * counter never moves between the two families.
     */
    default boolean handsOutValues() {
        return false;
    }

    /** Whether expire-after-idle may remove these counters: not when it {@link #handsOutValues()}. */
    default boolean mayExpire() {
        return !handsOutValues();
    }

    /** Whether an increment may carry an {@link dev.counters.IdempotencyKey}: not when it {@link #handsOutValues()}. */
    default boolean takesIdempotencyKeys() {
        return !handsOutValues();
    }

    /**
     * Whether the counters are kept within bounds, and a change that would leave them is refused ({@code bounded}).
     * Only such counters take {@link dev.counters.CounterService#tryIncrement(String, long)} and reservations.
     */
    default boolean refusesBeyondBounds() {
        return false;
    }

    /** Whether the counters may have time windows ({@link dev.counters.CounterRule#window()}): not bounded ones. */
    default boolean takesWindows() {
        return true;
    }

    /**
     * Whether the strategy can keep a membership counter's count ({@link dev.counters.MembershipCounter}): it writes
     * cells in a transaction of its own per write, which the membership rows can share (atomic, sharded, node).
     */
    default boolean countsMembers() {
        return false;
    }

    /** Calls the visitor's method for this strategy. */
    <R> R accept(Visitor<R> visitor);

    /**
     * One method per strategy. A new record in {@code permits} adds a method here, and the compiler then names every
     * visitor that must handle it.
     */
    interface Visitor<R> {

        R atomic(AtomicSettings settings);

        R optimistic(OptimisticSettings settings);

        R sharded(ShardedSettings settings);

        R node(NodeSettings settings);

        R buffered(BufferedSettings settings);

        R deltaLog(DeltaLogSettings settings);

        R monotonic(MonotonicSettings settings);

        R bounded(BoundedSettings settings);
    }
}
