package dev.counters.spi;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/** Batches of deltas applied exactly once, under a key: the {@code buffered} strategy's flushes. */
public interface IdempotentBatches {

    /**
     * Adds each delta to its counter's {@code cell} and records {@code key}, all in one transaction, unless
     * {@code key} was recorded before. The key is written first, so a retry of the same key and deltas is safe
     * whatever happened to an earlier attempt: it waits for an attempt still in flight, and applies the deltas
     * only if no attempt committed. Keys should name their content (a digest of the deltas), so that a recorded
     * key also proves what it applied.
     *
     * <p>{@code keyed} are callers' increments under their idempotency keys (see {@link IdempotencyKeys}), whose
     * deltas are among {@code deltas} (or were among an earlier batch's): each key is recorded with its increment
     * in the same transaction, and for a key recorded before (by an earlier batch, or another process) its
     * increment's delta is taken out of the batch and the key reported.
     *
     * @return whether this call applied the batch (if not, the key was recorded already and nothing was written,
     *     which the caller may take as its own earlier attempt only if it made one whose outcome is unknown), and
     *     the idempotency keys it skipped
     * @throws dev.counters.CounterOverflowException naming a counter that would overflow; nothing is written
     */
    AppliedBatch applyBatch(
            String key, String cell, Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed, Instant now);

    /**
     * The counters' values, each with the deltas of the batches in {@code inFlight} (by key) whose key it finds not
     * recorded: a counter's value and the keys it is checked against are read in one snapshot, so a batch that
     * commits during the read counts once, as stored or as in flight, whatever the moment. How a writer with several
     * batches in flight is read without waiting for its commits. Counters without a value are absent.
     *
     * @throws dev.counters.CounterOverflowException when a value leaves the 64-bit range
     */
    Map<CounterName, Long> getAllWithBatches(
            Collection<CounterName> counters, Map<String, Map<CounterName, Long>> inFlight);

    /**
     * {@link #getAllWithBatches}' answer from what one snapshot read: the stored values of {@code counters} and which
     * keys of {@code inFlight} are recorded.
     */
    static Map<CounterName, Long> withUnrecorded(
            Collection<CounterName> counters,
            Map<CounterName, Long> stored,
            Set<String> recorded,
            Map<String, Map<CounterName, Long>> inFlight) {
        Map<CounterName, Long> values = new HashMap<>(stored);
        inFlight.forEach((key, deltas) -> {
            if (!recorded.contains(key)) {
                deltas.forEach((name, delta) -> {
                    if (counters.contains(name)) {
                        try {
                            values.put(name, Math.addExact(values.getOrDefault(name, 0L), delta));
                        } catch (ArithmeticException e) {
                            throw CounterOverflowException.ofTotal(name);
                        }
                    }
                });
            }
        });
        return values;
    }

    /** Forgets batch keys recorded before {@code appliedBefore}; returns how many. */
    int pruneBatchKeys(Instant appliedBefore);

    /**
     * What a batch did: whether it was applied, and the idempotency keys of its keyed increments that were recorded
     * before, each with the increment it was recorded with (which may differ from the batch's: then the batch's
     * increment was a misuse of the key, and skipped all the same).
     */
    record AppliedBatch(boolean applied, Map<String, KeyedDelta> repeatedKeys) {

        /** The batch's key was recorded already: nothing was written. */
        public static final AppliedBatch NOT_APPLIED = new AppliedBatch(false, Map.of());

        public AppliedBatch {
            repeatedKeys = Map.copyOf(repeatedKeys);
        }
    }
}
