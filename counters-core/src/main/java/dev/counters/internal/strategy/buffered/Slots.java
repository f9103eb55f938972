package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.strategy.BufferedSettings;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.StampedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The counters' {@link Slot}s, at most max-pending-counters of them, and the count of the increments they took. A new
 * slot is admitted through the {@link CloseGate}, so that none comes after the last drain, and waits for {@link Room}
 * when the buffer is full. The flusher drains the slots into its batches and evicts those that stayed idle.
 */
final class Slots {

    private static final Logger LOG = LoggerFactory.getLogger(Slots.class);

    private final ConcurrentHashMap<CounterName, Slot> byName = new ConcurrentHashMap<>();

    private final int maxCounters;
    private final CloseGate gate;
    private final Room room;

    /**
     * The increments accepted, counted without a second add on the hot path: an increment of 1 is counted by the add
     * to its slot; every other increment (another delta, a durable one) here.
     */
    private final LongAdder otherIncrements = new LongAdder();
    /** The slots' increments of 1 once taken from them (a flush, a delete). */
    private final LongAdder collectedOnes = new LongAdder();
    /** {@link #otherIncrements} at the last drain, for the flush threshold. */
    private volatile long othersAtDrain;
    /**
     * Held exclusively by a move of increments of 1 out of the slots (a drain, a delete), a few microseconds of work in
     * memory; a count reads between two moves, or holds them off if they come too often to find a gap.
     */
    private final StampedLock moves = new StampedLock();

    Slots(BufferedSettings settings, CloseGate gate, Room room) {
        this.maxCounters = settings.maxPendingCounters();
        this.gate = gate;
        this.room = room;
    }

    // ---- adding ----

    /** Adds the delta to the counter's slot, admitted if new. */
    void increment(CounterName name, long delta) {
        Slot slot = byName.get(name);
        addTo(name, slot != null ? slot : lookUp(name), delta);
    }

    /** The counter's slot, admitted if new (waiting for room if full), for a caller that passed the gate already. */
    Slot slotEntered(CounterName name) {
        return slot(name);
    }

    /** The counter's slot, admitted if new; through the gate, so that no slot is admitted after the last drain. */
    Slot lookUp(CounterName name) {
        gate.enter(name);
        try {
            return slot(name);
        } finally {
            gate.leave();
        }
    }

    /**
     * Adds the delta to the slot, or to the counter's current slot if this one is sealed: by the last drain (then the
     * look-up refuses the increment), or by the final drain of a slot retired a while ago, which a caller that held it
     * all that time must not add to unseen. Returns the slot added to.
     */
    Slot addTo(CounterName name, Slot slot, long delta) {
        while (!add(name, slot, delta)) {
            slot = lookUp(name);
        }
        return slot;
    }

    /** Adds the delta to the slot; false, having added nothing, once a drain sealed it. Never waits. */
    boolean add(CounterName name, Slot slot, long delta) {
        return (delta == 1 && slot.takesOnesUnchecked()) ? slot.add(1) : addOther(name, slot, delta);
    }

    private boolean addOther(CounterName name, Slot slot, long delta) {
        boolean added = slot.addOther(name, delta);
        if (added) {
            otherIncrements.increment();
        }
        return added;
    }

    private Slot slot(CounterName name) {
        Slot slot = byName.get(name);
        return slot != null ? slot : admit(name);
    }

    private Slot admit(CounterName name) {
        if (isFull()) {
            room.await(name, this::isFull, byName.size() + " counters");
        }
        return byName.computeIfAbsent(name, key -> new Slot());
    }

    /** Counts an increment accepted outside the slots: a durable one, queued for the next flush. */
    void countOther() {
        otherIncrements.increment();
    }

    boolean isFull() {
        return byName.size() >= maxCounters;
    }

    int size() {
        return byName.size();
    }

    // ---- counting and reading ----

    /**
     * Counted when asked, from the slots: the service does not count a buffered increment, which would be a second
     * add. A slot's increments of 1 move to {@link #collectedOnes} when they leave it, so the count reads between two
     * moves: first without a lock, then, if a move came meanwhile, holding the moves off while it reads.
     */
    long acceptedIncrements() {
        long stamp = moves.tryOptimisticRead();
        long counted = countBetweenMoves();
        if (moves.validate(stamp)) {
            return counted;
        }
        stamp = moves.readLock();
        try {
            return countBetweenMoves();
        } finally {
            moves.unlockRead(stamp);
        }
    }

    private long countBetweenMoves() {
        return collectedOnes.sum() + otherIncrements.sum() + onesInSlots();
    }

    /**
     * Increments accepted since the last drain, about: an increment other than 1 is counted just after its add, so a
     * drain may take it before it is counted. For the flush threshold and statistics, never for values.
     */
    long pendingIncrements() {
        return Math.max(0, otherIncrements.sum() - othersAtDrain + onesInSlots());
    }

    /** The increments of 1 the slots hold now. */
    private long onesInSlots() {
        long ones = 0;
        for (Slot slot : byName.values()) {
            ones += slot.sum();
        }
        return ones;
    }

    /** What the counter's slot holds. @throws ArithmeticException when that is past the 64-bit range */
    long pending(CounterName name) {
        Slot slot = byName.get(name);
        return slot == null ? 0 : slot.pending();
    }

    // ---- taking ----

    /** Drops the counter's slot and what it holds (a delete). */
    void remove(CounterName name) {
        Slot slot = byName.remove(name);
        if (slot != null) {
            long stamp = moves.writeLock();
            try {
                retire(slot);
                take(slot);
            } catch (ArithmeticException e) {
                // deleted anyway
            } finally {
                moves.unlockWrite(stamp);
            }
        }
    }

    /**
     * Adds what every slot holds to {@code deltas}, evicting the slots that stayed idle for two flushes (or for one
     * when the buffer is full: never a slot this drain sees first, whose caller may be about to add). The flusher's,
     * in an odd epoch.
     */
    void drainInto(Map<CounterName, Long> deltas) {
        long othersAt = otherIncrements.sum();
        long stamp = moves.writeLock();
        try {
            for (Iterator<Map.Entry<CounterName, Slot>> it = byName.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<CounterName, Slot> entry = it.next();
                Slot slot = entry.getValue();
                boolean firstDrain = slot.firstDrain();
                if (takeInto(deltas, entry.getKey(), slot)) {
                    slot.used();
                } else if (slot.idle() >= 2 || (isFull() && !firstDrain)) {
                    it.remove();
                    retire(slot);
                    takeInto(deltas, entry.getKey(), slot); // what an add that held the slot put in before the seal
                }
            }
        } finally {
            moves.unlockWrite(stamp);
        }
        othersAtDrain = othersAt;
    }

    /**
     * Seals a slot that left the map: an add by a caller that looked it up before either landed before the seal, and
     * is taken after it, or fails and goes to the counter's new slot. Never an add to a slot no drain or read sees.
     */
    private static void retire(Slot slot) {
        slot.retire();
        slot.sealAll();
    }

    /**
     * Adds what a slot held to the batch's deltas; a sum past the 64-bit range is dropped, and logged, as when the
     * store refuses it. Whether the slot held anything.
     */
    private boolean takeInto(Map<CounterName, Long> deltas, CounterName name, Slot slot) {
        try {
            long delta = take(slot);
            if (delta != 0) {
                deltas.put(name, Math.addExact(deltas.getOrDefault(name, 0L), delta));
            }
            return delta != 0;
        } catch (ArithmeticException e) {
            deltas.remove(name);
            LOG.error(
                    "Dropping the pending deltas of counter '{}': their sum is past the 64-bit range, and would"
                            + " wrap around",
                    name);
            return true;
        }
    }

    /**
     * Empties the slot: its sum, with its increments of 1 counted as collected.
     *
     * @throws ArithmeticException when the sum is past the 64-bit range (the slot is empty all the same)
     */
    private long take(Slot slot) {
        long ones = slot.sumThenReset();
        collectedOnes.add(ones);
        return Math.addExact(Math.addExact(ones, slot.takeSmall()), slot.takeLarge());
    }

    /**
     * Seals every slot before the last drain, once no new slot can come: an add to a slot either is in what the drain
     * writes or fails. In an odd epoch, as the seal moves what the adders hold; from any thread (closing seals them
     * when the flusher is stuck).
     */
    void sealAll() {
        byName.values().forEach(Slot::sealAll);
    }

    /** Whether a slot holds anything. */
    boolean hasPending() {
        return byName.values().stream().anyMatch(slot -> pendingOrOverflow(slot) != 0);
    }

    /** How many slots in the map hold anything, for the log. */
    long pendingCounters() {
        return byName.values().stream()
                .filter(slot -> pendingOrOverflow(slot) != 0)
                .count();
    }

    private static long pendingOrOverflow(Slot slot) {
        try {
            return slot.pending();
        } catch (ArithmeticException e) {
            return 1;
        }
    }
}
