package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;

/**
 * A counter's pending deltas. The slot is itself the adder of its increments of 1, which most are: their count and
 * their sum in one add, one pointer from the handle that holds the slot. The last drain seals it.
 */
final class Slot extends SealableAdder {

    /**
     * The largest delta added without a check. Smaller ones cannot take a slot past the 64-bit range: that would take
     * 2^47 of them without a flush, longer than the key retention (7 days) at 200 million a second. A larger one is
     * checked against what the slot holds, and so is every later one of that slot: a counter near the end of the range
     * gets {@link CounterOverflowException}. An unchecked add racing the first check can still pass it; the flush
     * then finds the sum out of range and drops the counter's delta, logged, as when the store refuses it.
     */
    private static final long SMALL_DELTA = 1L << 16;

    /** The sum of the other deltas up to {@link #SMALL_DELTA}, added unchecked. */
    private final SealableAdder others = new SealableAdder();
    /** Set by the first larger delta: from then on every add to the slot is checked, under its lock. */
    private volatile boolean checked;
    /** The sum of the checked adds; written under the slot's lock. */
    private volatile long large;
    /** Set with the seal of the adders, under the slot's lock: checked adds are refused from then on. */
    private boolean sealed;
    /** Flushes in a row that found the slot empty; the flusher's own. */
    private int idleFlushes;
    /** Whether a drain has visited the slot; the flusher's own. */
    private boolean drained;
    /** Set when the slot leaves the map: a handle holding it looks the counter up again. */
    private volatile boolean retired;

    /** Whether an increment of 1 is one unchecked add to the slot itself, as long as no larger delta came. */
    boolean takesOnesUnchecked() {
        return !checked;
    }

    /** Adds a delta other than an unchecked 1; false, having added nothing, once sealed. */
    boolean addOther(CounterName name, long delta) {
        return (checked || delta > SMALL_DELTA || delta < -SMALL_DELTA) ? addChecked(name, delta) : others.add(delta);
    }

    /** What the slot holds. @throws ArithmeticException when that is past the 64-bit range */
    long pending() {
        return Math.addExact(sum() + others.sum(), large); // small deltas cannot leave the range: SMALL_DELTA
    }

    /** Adds the delta unless the slot's sum would leave the 64-bit range; false once sealed. */
    private synchronized boolean addChecked(CounterName name, long delta) {
        if (sealed) {
            return false;
        }
        checked = true;
        try {
            Math.addExact(pending(), delta);
            large = Math.addExact(large, delta);
        } catch (ArithmeticException e) {
            throw new CounterOverflowException(name, delta);
        }
        return true;
    }

    /** Takes the sum of the small deltas other than 1 (the increments of 1 are {@link #sumThenReset()}). */
    long takeSmall() {
        return others.sumThenReset();
    }

    /** Takes the sum of the checked adds. */
    synchronized long takeLarge() {
        long taken = large;
        large = 0;
        return taken;
    }

    /** Refuses every later add; what the slot holds stays until taken. */
    void sealAll() {
        seal();
        others.seal();
        synchronized (this) {
            sealed = true;
        }
    }

    /**
     * Whether this is the first drain to visit the slot. A slot admitted just before it may be empty only because its
     * caller has not added yet, so it is not idle.
     */
    boolean firstDrain() {
        boolean first = !drained;
        drained = true;
        return first;
    }

    /** A flush took something from the slot. */
    void used() {
        idleFlushes = 0;
    }

    /** A flush found the slot empty; how many in a row have. */
    int idle() {
        return ++idleFlushes;
    }

    void retire() {
        retired = true;
    }

    boolean isRetired() {
        return retired;
    }
}
