package dev.counters.internal.strategy.buffered;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.CounterName;
import dev.counters.IdempotencyKey;
import dev.counters.IdempotencyKeyReusedException;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import dev.counters.spi.IdempotentBatches.AppliedBatch;
import dev.counters.strategy.BufferedSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.StampedLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency keys of keyed increments, from their acceptance until the store recognises them. A keyed increment
 * adds its delta to the counter's slot and queues its key for the next flush, which records it in the same
 * transaction: a repeat while the key is pending or lately flushed is recognised here, a later one by the store, which
 * then leaves its delta out. Until that flush, this node's reads include the repeated delta.
 *
 * <p>A key travels in the batch that carries its delta, so that the store never records a key whose delta another
 * lane's flush has yet to write (and closing may give up): a keyed increment adds its delta and queues its key holding
 * {@link #pairing} shared, and a flush takes the keys and the slots' deltas holding it exclusively.
 */
final class PendingKeys {

    private static final Logger LOG = LoggerFactory.getLogger(PendingKeys.class);

    private static final int FLUSHED_KEYS_KEPT = 100_000;

    /** Keys accepted and not yet in a committed batch; once committed, the store's record of the key recognises it. */
    private final ConcurrentHashMap<String, KeyedDelta> pending = new ConcurrentHashMap<>();
    /**
     * Keys this node flushed lately, so that a repeat here is recognised without a round trip, and a misuse refused.
     * Bounded: a repeat of a key it forgot is still recognised by the store, at the flush.
     */
    private final Cache<String, KeyedDelta> flushed;
    /**
     * Keyed increments for the next batch, whose deltas are in the slots already; a flush takes the whole queue and
     * leaves a new one, so that the pairing is held for the swap only, however many keys wait.
     */
    private volatile ConcurrentLinkedQueue<Map.Entry<String, KeyedDelta>> queue = new ConcurrentLinkedQueue<>();

    /** Keeps flushes from taking a delta without its key: see the class comment. Held for moments in memory. */
    private final StampedLock pairing = new StampedLock();

    private final int maxKeys;
    private final Slots slots;
    private final Room room;

    PendingKeys(BufferedSettings settings, Slots slots, Room room) {
        this.flushed = Caffeine.newBuilder()
                .maximumSize(FLUSHED_KEYS_KEPT)
                .expireAfterWrite(settings.keyRetention())
                .build();
        this.maxKeys = settings.maxPendingCounters();
        this.slots = slots;
        this.room = room;
    }

    /**
     * Adds the delta under the key, once: a repeat with the same counter and delta adds nothing. For a caller inside the
     * gate.
     *
     * @throws IdempotencyKeyReusedException for a repeat with another counter or delta
     */
    void increment(CounterName name, long delta, IdempotencyKey key) {
        KeyedDelta increment = new KeyedDelta(name, delta);
        KeyedDelta known = flushed.getIfPresent(key.value());
        if (known == null) {
            known = pending.get(key.value());
        }
        if (known == null) {
            // Each new key is a row its flush writes: as many as max-pending-counters wait at most, as counters do.
            if (isFull()) {
                room.await(name, this::isFull, pending.size() + " idempotency keys");
            }
            known = pending.putIfAbsent(key.value(), increment);
        }
        if (known == null) {
            try {
                addWithKey(name, delta, Map.entry(key.value(), increment));
            } catch (RuntimeException e) {
                pending.remove(key.value(), increment);
                throw e;
            }
        } else if (!known.equals(increment)) {
            throw new IdempotencyKeyReusedException(key, known.counter().value(), known.delta(), name.value(), delta);
        }
    }

    /** Adds the delta to the counter's slot and queues its key, with no flush taking either in between. */
    private void addWithKey(CounterName name, long delta, Map.Entry<String, KeyedDelta> key) {
        Slot slot = slots.slotEntered(name); // may wait for room: never while holding the pairing, which a flush needs
        while (true) {
            long stamp = pairing.readLock();
            try {
                if (slots.add(name, slot, delta)) {
                    queue.add(key);
                    return;
                }
            } finally {
                pairing.unlockRead(stamp);
            }
            slot = slots.lookUp(name); // sealed meanwhile: the counter's new slot, or refused once closing
        }
    }

    private boolean isFull() {
        return pending.size() >= maxKeys;
    }

    /** How many keys wait for a committed batch. */
    int size() {
        return pending.size();
    }

    /** Takes the queued keys for a new batch, and the slots' deltas with them ({@code drainSlots}): theirs among them. */
    Map<String, KeyedDelta> drainWith(Runnable drainSlots) {
        ConcurrentLinkedQueue<Map.Entry<String, KeyedDelta>> taken;
        long stamp = pairing.writeLock();
        try {
            taken = queue;
            queue = new ConcurrentLinkedQueue<>();
            drainSlots.run();
        } finally {
            pairing.unlockWrite(stamp);
        }
        Map<String, KeyedDelta> keyed = new HashMap<>();
        taken.forEach(entry -> keyed.put(entry.getKey(), entry.getValue()));
        return keyed;
    }

    boolean hasQueued() {
        return !queue.isEmpty();
    }

    /** The batch carrying these keys committed: the store recognises them now. */
    void flushed(Map<String, KeyedDelta> keyed, AppliedBatch result) {
        keyed.forEach((key, increment) -> {
            flushed.put(key, result.repeatedKeys().getOrDefault(key, increment));
            pending.remove(key, increment);
        });
    }

    /** Forgets a pending key whose delta is dropped; whether it was pending. */
    boolean drop(String key, KeyedDelta increment) {
        return pending.remove(key, increment);
    }

    /**
     * A key the store had recorded for another increment: this node's increment under it was a misuse of the key,
     * acknowledged before the flush found out, and left out all the same. Only the log can say so now.
     */
    static void reportMisused(Batch batch, AppliedBatch applied) {
        applied.repeatedKeys().forEach((key, recorded) -> {
            KeyedDelta ours = batch.keyed().get(key);
            if (ours != null && !ours.equals(recorded)) {
                LOG.error(
                        "{}; the buffered increment was acknowledged before its flush found the key, and is left out",
                        new IdempotencyKeyReusedException(
                                        IdempotencyKey.of(key),
                                        recorded.counter().value(),
                                        recorded.delta(),
                                        ours.counter().value(),
                                        ours.delta())
                                .getMessage());
            }
        });
    }
}
