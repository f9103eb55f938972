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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotency keys of keyed increments, from their acceptance until the store recognises them. A keyed increment
 * adds its delta to the counter's slot and queues its key for the next flush, which records it in the same
 * transaction: a repeat while the key is pending or lately flushed is recognised here, a later one by the store, which
 * then leaves its delta out. Until that flush, this node's reads include the repeated delta.
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
    /** Keyed increments for the next batch; their deltas are in the slots already (added before they are queued). */
    private final ConcurrentLinkedQueue<Map.Entry<String, KeyedDelta>> queue = new ConcurrentLinkedQueue<>();

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
                slots.incrementEntered(name, delta);
            } catch (RuntimeException e) {
                pending.remove(key.value(), increment);
                throw e;
            }
            queue.add(Map.entry(key.value(), increment)); // after the add: a batch never has a key without its delta
        } else if (!known.equals(increment)) {
            throw new IdempotencyKeyReusedException(key, known.counter().value(), known.delta(), name.value(), delta);
        }
    }

    private boolean isFull() {
        return pending.size() >= maxKeys;
    }

    /** How many keys wait for a committed batch. */
    int size() {
        return pending.size();
    }

    /** Takes the queued keys for a new batch: their deltas are in the slots, so in this batch or an earlier one. */
    Map<String, KeyedDelta> drain() {
        Map<String, KeyedDelta> keyed = new HashMap<>();
        for (Map.Entry<String, KeyedDelta> entry; (entry = queue.poll()) != null; ) {
            keyed.put(entry.getKey(), entry.getValue());
        }
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
