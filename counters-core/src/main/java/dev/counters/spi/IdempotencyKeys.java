package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Instant;
import java.util.OptionalLong;

/**
 * Increments applied at most once under a caller's idempotency key: the key is recorded in the transaction that
 * applies the increment, so a repeat finds it (or waits for an attempt still in flight) and writes nothing. Used by
 * the cell strategies ({@code atomic}, {@code optimistic}, {@code sharded}, {@code node}, {@code delta-log}) for an
 * increment with a key; {@code buffered} records its keys with {@link IdempotentBatches}. The service's housekeeping
 * prunes them.
 */
public interface IdempotencyKeys {

    /**
     * In one transaction: records {@code key} for {@code delta} to {@code counter}, then runs {@code write} on
     * this store bound to that transaction and records the value it returns; unless {@code key} is recorded
     * already, in which case it writes nothing and returns what the key was recorded with. A failure of
     * {@code write} rolls back the key with it. On a store bound to a caller's transaction
     * ({@link CounterStore#callerTransaction()}) it runs in that transaction.
     *
     * @return the key's increment, and whether this call applied it
     */
    KeyedIncrement applyOnce(String key, CounterName counter, long delta, Instant now, KeyedWrite write);

    /** Forgets up to {@code limit} keys recorded before {@code appliedBefore}, oldest first; returns how many. */
    int pruneKeys(Instant appliedBefore, int limit);

    /** An increment as an idempotency key records it: the counter and the delta. */
    record KeyedDelta(CounterName counter, long delta) {}

    /** The write an idempotency key guards, on the store bound to the key's transaction. */
    @FunctionalInterface
    interface KeyedWrite {

        /** Writes, and returns the counter's value after the write if the caller asked for it. */
        OptionalLong apply(CounterStore transaction);
    }

    /**
     * An increment recorded under an idempotency key: the counter and delta it was recorded for, the counter's
     * value after it if that was recorded, and whether the call that returned this applied it.
     */
    record KeyedIncrement(CounterName counter, long delta, OptionalLong value, boolean appliedNow) {}
}
