package dev.counters.contract;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import dev.counters.spi.IdempotentBatches.AppliedBatch;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A store that makes the ids of service instances collide, as the ids of the bug in issue 13 did: of an id
 * {@code instance.number...} whose number is 1 modulo 8 it keeps only the number, dropping the instance. Two
 * instances on it write delta {@code 1}, flush {@code 9}, and so on, under the same ids. An instance must notice that
 * the id is taken and write again under a new one (most likely unique); acknowledging would lose the increment.
 */
public final class CollidingIdsStore extends ForwardingCounterStore {

    public CollidingIdsStore(CounterStore delegate) {
        super(delegate);
    }

    /** {@code instance.number} or {@code instance.number.digest}: just {@code number} when it is 1 modulo 8. */
    static String number(String id) {
        String[] parts = id.split("\\.");
        return parts.length >= 2 && Long.parseLong(parts[1], 36) % 8 == 1 ? parts[1] : id;
    }

    @Override
    public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
        return super.appendDelta(counter, number(deltaId), delta, now);
    }

    @Override
    public AppliedBatch applyBatch(
            String key, String cell, Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed, Instant now) {
        return super.applyBatch(number(key), cell, deltas, keyed, now);
    }
}
