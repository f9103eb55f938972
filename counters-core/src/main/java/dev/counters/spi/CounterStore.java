package dev.counters.spi;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Storage for counters, as cells: a counter's value is the sum of its cells and of its unfolded deltas (a store with
 * a {@link DeltaLog}), and each cell is a signed 64-bit value addressed by the counter's name and a cell id. A
 * strategy decides what it writes: one cell ({@code atomic}, {@code optimistic}, {@code buffered}), one per shard
 * ({@code sharded}), one per node ({@code node}), deltas folded into a cell later ({@code delta-log}). Because every
 * read of a value ({@link #get}, {@link #getAll}, {@link #addAndGet}) reads that same sum, moving a counter from one of
 * them to another keeps its value, even while processes write it with both. Only {@link #cells} and {@link #read}
 * see single cells.
 *
 * <p>This interface is what every store offers. What only some strategies need is an opt-in capability, a nested
 * interface a store implements when its database can: {@link Leases}, {@link IdempotentBatches},
 * {@link IdempotencyKeys}, {@link DeltaLog}, {@link Maxima}, {@link Sequences}, {@link SessionLocks}. A strategy asks
 * for the capability it needs with {@link #capability} when it is built, and fails then if the store lacks it.
 *
 * <p>Each method is atomic and tried once: a store translates its database's errors and never retries, because only
 * the strategy knows whether repeating a write is safe. A method that fails with
 * {@link dev.counters.TransientStoreException} wrote nothing; any other failure of a write leaves its outcome
 * unknown. Implementations are thread-safe and pass counter names and cell ids to the database only as bind values.
 */
public interface CounterStore {

    /**
     * This store bound to the transaction the calling thread is in, when the store can take part in it: writes made
     * through the returned store commit or roll back with that transaction. Empty when the caller is in no such
     * transaction, and always for stores that know of no caller transactions.
     *
     * <p>Only writes whose undoing is harmless use it: an increment of an atomic or optimistic counter, a gapless
     * sequence number. A reserved block of sequence numbers, a flush or a lease must never be rolled back by the
     * caller, so they use this store itself.
     */
    default Optional<CounterStore> callerTransaction() {
        return Optional.empty();
    }

    /**
     * Adds {@code delta} to a cell, creating it with the value {@code delta} if it does not exist.
     *
     * @throws dev.counters.CounterOverflowException if the cell would leave the 64-bit range; nothing is written
     */
    void add(CounterName counter, String cell, long delta);

    /**
     * Like {@link #add}, then returns the counter's value (the sum of its cells and unfolded deltas) read in the same
     * transaction, so that it includes this delta.
     */
    long addAndGet(CounterName counter, String cell, long delta);

    /**
     * The counter's value: the sum of its cells and its unfolded deltas, read together (one statement, so that a
     * concurrent fold is counted once); 0 if it has neither.
     *
     * @throws dev.counters.CounterOverflowException if the sum leaves the 64-bit range
     */
    long get(CounterName counter);

    /**
     * The values of several counters in one round trip, as {@link #get} reads them; counters with neither cells nor
     * unfolded deltas are absent.
     */
    Map<CounterName, Long> getAll(Collection<CounterName> counters);

    /** Every cell of the counter with its value; empty if it has none. */
    Map<String, Long> cells(CounterName counter);

    /** A cell's value and version, if the cell exists. */
    Optional<VersionedValue> read(CounterName counter, String cell);

    /**
     * Sets a cell to {@code newValue} if it is still exactly as {@code expected} (its value and its version), raising
     * the version by one; a null {@code expected} means the cell must not exist yet, and creates it with version 1.
     * Both are compared: a version alone repeats when a counter is deleted and written again, and a caller that
     * remembers a cell from its own last write (rather than reading it again) must not overwrite such a cell.
     *
     * @return whether the cell was written; {@code false} (a conflict) writes nothing
     */
    boolean compareAndSet(CounterName counter, String cell, @Nullable VersionedValue expected, long newValue);

    /**
     * Removes everything stored for the counter, by any capability: cells, deltas, shard count, maximum shards.
     * Returns whether there was any cell or delta.
     */
    boolean delete(CounterName counter);

    /**
     * Names of the counters that have a cell, a delta or a maximum shard, in the database's order of names, each
     * once, starting after {@code after} (null: from the first), at most {@code limit}.
     */
    List<CounterName> counterNames(@Nullable CounterName after, int limit);

    /**
     * As {@link #counterNames(CounterName, int)}, only the names that start with {@code prefix}: the windows of a
     * counter, say. Unless overridden, it pages through every name and keeps those; a database store asks with
     * {@code LIKE}, since under a language's collation the names that share a prefix need not be next to each other.
     */
    default List<CounterName> counterNames(String prefix, @Nullable CounterName after, int limit) {
        List<CounterName> matching = new java.util.ArrayList<>();
        CounterName from = after;
        while (matching.size() < limit) {
            List<CounterName> page = counterNames(from, 1_000);
            for (CounterName name : page) {
                if (name.value().startsWith(prefix) && matching.size() < limit) {
                    matching.add(name);
                }
            }
            if (page.size() < 1_000) {
                break;
            }
            from = page.get(page.size() - 1);
        }
        return matching;
    }

    /**
     * This store as {@code capability}, when it offers it. Unless overridden, the store itself when it implements
     * the interface. A store that wraps another passes the question on.
     */
    default <T> Optional<T> capability(Class<T> capability) {
        return capability.isInstance(this) ? Optional.of(capability.cast(this)) : Optional.empty();
    }

    /**
     * A cell's value and its version. The version starts at 1 when the cell is created and grows by one with every
     * write, whichever operation made it.
     */
    record VersionedValue(long value, long version) {

        public VersionedValue {
            if (version < 1) {
                throw new IllegalArgumentException("version must be >= 1, was " + version);
            }
        }
    }

    /**
     * The database server's clock: every process on the database stamps and purges what guards exactly-once retries
     * (delta ids, idempotency keys, flush keys) and removes windows on it, so that no process's own clock error moves
     * a purge. A store of a database shared by several processes should offer it.
     */
    interface DatabaseClock {

        /** The database's clock now (one round trip). */
        Instant databaseTime();
    }

    /** Expiring claims on a key (a node's id, the one recount in flight for a counter). */
    interface Leases {

        /**
         * Takes or renews the lease {@code key} for {@code owner} until {@code expiresAt}: succeeds when nobody holds
         * it, when its holder's lease ended at or before {@code now}, or when {@code owner} already holds it.
         *
         * @return whether {@code owner} holds the lease now
         */
        boolean tryLease(String key, String owner, Instant expiresAt, Instant now);

        /** Gives up the lease if {@code owner} holds it. */
        void releaseLease(String key, String owner);
    }

    /** Batches of deltas applied exactly once, under a key (the buffered strategy's flushes). */
    interface IdempotentBatches {

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
        AppliedBatch applyBatch(String key, String cell, Map<CounterName, Long> deltas,
                Map<String, KeyedDelta> keyed, Instant now);

        /** Forgets batch keys recorded before {@code appliedBefore}; returns how many. */
        int pruneBatchKeys(Instant appliedBefore);
    }

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

    /** An increment as an idempotency key records it: the counter and the delta. */
    record KeyedDelta(CounterName counter, long delta) {
    }

    /**
     * Increments applied at most once under a caller's idempotency key: the key is recorded in the transaction that
     * applies the increment, so a repeat finds it (or waits for an attempt still in flight) and writes nothing.
     */
    interface IdempotencyKeys {

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
    }

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
    record KeyedIncrement(CounterName counter, long delta, OptionalLong value, boolean appliedNow) {
    }

    /**
     * A log of deltas under unique ids, folded into a cell by recounts (the delta-log strategy). A counter's unfolded
     * deltas count in its value wherever it is read ({@link CounterStore#get}, {@link CounterStore#getAll},
     * {@link CounterStore#addAndGet}), whichever strategy reads it; {@link #getFolded} leaves them out.
     */
    interface DeltaLog {

        /**
         * Appends a delta under an id unique for the counter, unless a delta is stored under that id already
         * (unfolded, or folded and not yet purged); then it writes nothing and reports what is stored. A caller may
         * take that as its own earlier attempt only if it made one whose outcome is unknown and the stored delta is
         * its delta: anything else is somebody else's row, and acknowledging it would lose an increment.
         *
         * @return empty if this call appended the delta; otherwise the delta already stored under {@code deltaId}
         * @throws dev.counters.TransientStoreException if the id was taken by a row gone before it could be read
         *     (purged): nothing was appended, and the caller tries again
         */
        OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now);

        /**
         * The values of several counters with their unfolded deltas: the same as {@link CounterStore#getAll}, which
         * reads them too.
         */
        Map<CounterName, Long> getWithDeltas(Collection<CounterName> counters);

        /**
         * The values of several counters as their last recounts left them: the sum of their cells alone, without the
         * unfolded deltas (delta-log's {@code read-folded}). Counters with no cell are absent.
         */
        Map<CounterName, Long> getFolded(Collection<CounterName> counters);

        /** Up to {@code limit} of the counter's unfolded deltas, by id. */
        Map<String, Long> unfoldedDeltas(CounterName counter, int limit);

        /**
         * In one transaction: marks the deltas {@code deltaIds} folded and adds {@code sum} to {@code cell}, if every
         * one of them is still unfolded, and deletes folded deltas appended before {@code purgeBefore}. Folded
         * deltas are kept until then, so that a late retry of an append still finds its id.
         *
         * @return false, writing nothing, if any of the deltas was folded already (by a concurrent recount)
         */
        boolean foldDeltas(CounterName counter, String cell, Collection<String> deltaIds, long sum,
                Instant purgeBefore);
    }

    /**
     * Removing counters nobody writes any more (a rule's {@code expire-after-idle}). Every write raises a cell's
     * version, so a counter whose cells kept their versions between two looks was not written between them: the
     * expiry compares versions, and costs the write path nothing.
     */
    interface IdleCounters {

        /** The cells of several counters, each with its version; counters with no cell are absent. */
        Map<CounterName, Map<String, Long>> cellVersions(Collection<CounterName> counters);

        /**
         * In one transaction: deletes the counter's cells if each is still at the version given, no other cell exists,
         * and the counter has no unfolded delta; otherwise writes nothing. A cell created meanwhile is never deleted.
         *
         * @return whether the counter was deleted
         */
        boolean deleteIfUnchanged(CounterName counter, Map<String, Long> cellVersions);
    }

    /** Values that only grow: a sharded counter's shard count, and a monotonic counter's maximum over shards. */
    interface Maxima {

        /** The counter's persisted shard count, if one was ever stored. */
        OptionalInt shardCount(CounterName counter);

        /**
         * Raises the counter's persisted shard count to at least {@code shards}; it never goes down.
         *
         * @return the shard count stored now (at least {@code shards})
         */
        int growShardCount(CounterName counter, int shards);

        /** Raises shard {@code shard} of the counter's maximum record to {@code value} if it is lower (or absent). */
        void raiseShard(CounterName counter, int shard, long value);

        /** The maximum over the counter's shards, if it has any. */
        OptionalLong maxOfShards(CounterName counter);

        /**
         * Names of the counters that have a maximum record (monotonic counters), in the database's order of names,
         * starting after {@code after} (null: from the first), at most {@code limit}.
         */
        List<CounterName> maximumNames(@Nullable CounterName after, int limit);
    }

    /** Sequences that hand out values a block at a time. */
    interface Sequences {

        /**
         * Reserves up to {@code count} values of a sequence in one transaction: the next {@code count} values, or
         * fewer when fewer are left before {@code maxValue}. A sequence that does not exist yet starts at
         * {@code start}. Values reserved are never reserved again, whatever happens to the caller.
         *
         * @throws SequenceExhaustedException when no value is left; nothing is reserved
         */
        Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue);
    }

    /**
     * Values reserved from a sequence: {@code count} values starting at {@code first}, each {@code increment} apart.
     */
    record Reservation(long first, long count, long increment) {

        public Reservation {
            if (count < 1) {
                throw new IllegalArgumentException("a reservation holds at least one value, was " + count);
            }
        }

        /**
         * The reservation of up to {@code count} values starting at {@code next}, and fewer when fewer are left
         * before {@code maxValue}: the arithmetic every store shares, without overflow.
         *
         * @throws SequenceExhaustedException when {@code next} is already past {@code maxValue}
         */
        public static Reservation starting(CounterName sequence, long next, long count, long increment,
                long maxValue) {
            if (next > maxValue) {
                throw new SequenceExhaustedException(sequence.value(), maxValue);
            }
            // maxValue - next is at most 2^64 - 1 (next <= maxValue): unsigned, as a start far below 0 needs.
            long steps = Long.divideUnsigned(maxValue - next, increment);
            return new Reservation(next, Long.compareUnsigned(steps, count - 1) >= 0 ? count : steps + 1, increment);
        }

        /** The {@code index}th value (0-based). */
        public long value(long index) {
            return first + index * increment;
        }

        public long last() {
            return value(count - 1);
        }

        /**
         * Where the next reservation starts. It cannot overflow, because a sequence's maximum is at most
         * {@code Long.MAX_VALUE - increment}.
         */
        public long next() {
            return Math.addExact(last(), increment);
        }
    }

    /**
     * Locks held by a database session of their own, which the database releases by itself when the session ends:
     * when the process holding one dies, even by {@code kill -9}, the lock is free again as soon as the server sees
     * its connection close, with no expiry to wait for (MySQL and MariaDB {@code GET_LOCK}, PostgreSQL advisory
     * locks).
     */
    interface SessionLocks {

        /**
         * Takes the lock named {@code key} at once, on a connection kept for it alone.
         *
         * @return the lock, or empty when another session holds it
         */
        Optional<SessionLock> tryLock(String key);

        /** A lock held on a session of its own; closing it releases the lock and the session. */
        interface SessionLock extends AutoCloseable {

            /** Whether the session is alive, and so still holds the lock; false once it ended, whatever the cause. */
            boolean isHeld();

            @Override
            void close();
        }
    }
}
