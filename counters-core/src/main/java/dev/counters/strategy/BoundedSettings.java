package dev.counters.strategy;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the {@code bounded} strategy: a counter kept within {@code [min, max]} (stock never below 0, a quota
 * never above its limit). A change that would leave the bounds is refused and writes nothing
 * ({@link dev.counters.CounterService#tryIncrement(String, long)} says so). On a busy counter each node takes an
 * <em>allowance</em>, a part of the room to the bound, from a shared pool row into a row it alone writes, and changes
 * within it without touching a shared row (escrow); near the bound every node works on the pool row, so the last units
 * are exact. Exact and durable when a change returns.
 *
 * @param min the lowest value (null: none)
 * @param max the highest value (null: none); at least one of the two is set
 * @param initial the value of a counter when it is first used, within the bounds
 * @param escrow whether busy nodes take allowances; false keeps every change on the guarded pool row
 * @param escrowAbove the rate of changes per second of one counter on one node above which the node takes an
 *     allowance; below it, changes go to the pool row
 * @param nodeId this process's node id, as for {@code node} (1 to 40 ASCII letters, digits, {@code . _ -}); null
 *     generates one per start. It names the process's allowance rows, which it gives back when idle or closing
 * @param leaseTtl how long a claim on the node id lasts without renewal, where it is a lease (H2, Galera): a crashed
 *     node's allowance goes back to the pool within this plus {@code sweepInterval}
 * @param refillHorizon an allowance is sized to last about this long at the node's rate
 * @param minRefill the fewest units a refill takes
 * @param maxRefill the most units a refill takes
 * @param giveBackAfter an allowance unused for this long goes back to the pool
 * @param sweepInterval how often expired holds and crashed nodes' allowances go back to the pool
 * @param maxHoldTtl the longest a reservation may be held
 */
public record BoundedSettings(
        @Nullable Long min,
        @Nullable Long max,
        long initial,
        boolean escrow,
        double escrowAbove,
        @Nullable String nodeId,
        Duration leaseTtl,
        Duration refillHorizon,
        long minRefill,
        long maxRefill,
        Duration giveBackAfter,
        Duration sweepInterval,
        Duration maxHoldTtl)
        implements StrategySettings {

    private static final Pattern NODE_ID = Pattern.compile("[A-Za-z0-9._-]{1,40}");

    public BoundedSettings {
        if (min == null && max == null) {
            throw new IllegalArgumentException("A bounded counter needs a min, a max or both");
        }
        if (min != null && max != null && min > max) {
            throw new IllegalArgumentException("bounded min " + min + " is above max " + max);
        }
        if ((min != null && initial < min) || (max != null && initial > max)) {
            throw new IllegalArgumentException(
                    "bounded initial value " + initial + " is outside [" + bound(min) + ", " + bound(max) + "]");
        }
        // The rooms to the bounds are stored as 64-bit values: they must fit.
        fits(min, initial, "min");
        fits(initial, max, "max");
        if (nodeId != null && !NODE_ID.matcher(nodeId).matches()) {
            throw new IllegalArgumentException(
                    "Node id '" + nodeId + "' is invalid: use 1 to 40 ASCII letters, digits, '.', '_' or '-'");
        }
        if (!(escrowAbove >= 0) || Double.isInfinite(escrowAbove)) {
            throw new IllegalArgumentException("bounded escrow-above must be a rate >= 0, was " + escrowAbove);
        }
        if (minRefill < 1 || maxRefill < minRefill) {
            throw new IllegalArgumentException(
                    "bounded refills need 1 <= min-refill <= max-refill, were " + minRefill + " and " + maxRefill);
        }
        atLeast(leaseTtl, Duration.ofSeconds(1), "lease-ttl");
        atLeast(refillHorizon, Duration.ofMillis(1), "refill-horizon");
        atLeast(giveBackAfter, Duration.ofMillis(1), "give-back-after");
        atLeast(sweepInterval, Duration.ofMillis(100), "sweep-interval");
        atLeast(maxHoldTtl, Duration.ofSeconds(1), "max-hold-ttl");
    }

    private static String bound(@Nullable Long bound) {
        return bound == null ? "none" : bound.toString();
    }

    private static void fits(@Nullable Long low, @Nullable Long high, String which) {
        if (low != null && high != null) {
            try {
                Math.subtractExact(high, low);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("bounded " + which + " is too far from the initial value: the room"
                        + " between " + low + " and " + high + " is past the 64-bit range");
            }
        }
    }

    private static void atLeast(Duration duration, Duration least, String name) {
        Objects.requireNonNull(duration, name);
        if (duration.compareTo(least) < 0) {
            throw new IllegalArgumentException("bounded " + name + " must be at least " + least + ", was " + duration);
        }
    }

    /**
     * Never below 0, no max, starting at 0; escrow for nodes above 10 changes a second, allowances lasting about 200 ms
     * (16 to 100,000 units), given back after 2 s idle; holds swept every 5 s, held up to an hour; a 30-second node
     * lease.
     */
    public static BoundedSettings defaults() {
        return new BoundedSettings(
                0L,
                null,
                0,
                true,
                10,
                null,
                Duration.ofSeconds(30),
                Duration.ofMillis(200),
                16,
                100_000,
                Duration.ofSeconds(2),
                Duration.ofSeconds(5),
                Duration.ofHours(1));
    }

    /** The defaults with these bounds, starting at 0, or at the bound nearest to 0 when 0 is outside them. */
    public static BoundedSettings of(@Nullable Long min, @Nullable Long max) {
        return defaults().withBounds(min, max);
    }

    /** These settings with other bounds, starting at 0, or at the bound nearest to 0 when 0 is outside them. */
    public BoundedSettings withBounds(@Nullable Long min, @Nullable Long max) {
        long initial = min != null && min > 0 ? min : max != null && max < 0 ? max : 0;
        return withBounds(min, max, initial);
    }

    public BoundedSettings withBounds(@Nullable Long min, @Nullable Long max, long initial) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                escrowAbove,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    public BoundedSettings withInitial(long initial) {
        return withBounds(min, max, initial);
    }

    public BoundedSettings withEscrow(boolean escrow) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                escrowAbove,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    public BoundedSettings withEscrowAbove(double changesPerSecond) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                changesPerSecond,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    public BoundedSettings withNodeId(@Nullable String nodeId) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                escrowAbove,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    public BoundedSettings withLeaseTtl(Duration leaseTtl) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                escrowAbove,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    public BoundedSettings withRefills(Duration refillHorizon, long minRefill, long maxRefill) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                escrowAbove,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    public BoundedSettings withGiveBackAfter(Duration giveBackAfter) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                escrowAbove,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    public BoundedSettings withSweepInterval(Duration sweepInterval) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                escrowAbove,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    public BoundedSettings withMaxHoldTtl(Duration maxHoldTtl) {
        return new BoundedSettings(
                min,
                max,
                initial,
                escrow,
                escrowAbove,
                nodeId,
                leaseTtl,
                refillHorizon,
                minRefill,
                maxRefill,
                giveBackAfter,
                sweepInterval,
                maxHoldTtl);
    }

    @Override
    public String name() {
        return "bounded";
    }

    /** Never: removing a stock or a quota after it idled would reset it. */
    @Override
    public boolean mayExpire() {
        return false;
    }

    @Override
    public boolean refusesBeyondBounds() {
        return true;
    }

    /** Not in this version: a quota per window is a rate limit. */
    @Override
    public boolean takesWindows() {
        return false;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.bounded(this);
    }
}
