package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * Storage for counters, as cells: a counter is the sum of its cells and of its unfolded deltas, and each cell is a
 * signed 64-bit value addressed by the counter's name and a cell id. A strategy decides what it writes: one cell
 * ({@code atomic}, {@code buffered}), one per shard ({@code sharded}), one per node ({@code node}), or a log of
 * deltas ({@code delta-log}). Because every such strategy reads the same sum, moving a counter from one of them to
 * another keeps its value. Monotonic counters keep a separate record: the maximum over their shards.
 *
 * <p>Each method is atomic. A method that fails with {@link dev.counters.TransientStoreException} wrote nothing;
 * any other failure of a write leaves its outcome unknown. Implementations are thread-safe and pass counter names
 * and cell ids to the database only as bind values.
 */
public interface CounterStore {

    /**
     * This store bound to the transaction the calling thread is in, when the store can take part in it: writes made
     * through the returned store commit or roll back with that transaction. They are not retried, since a database
     * that rolls back a statement may have rolled back the caller's whole transaction; the caller retries the
     * transaction as a whole. Empty when the caller is in no such transaction, and always for stores that know of
     * no caller transactions.
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
     * @throws ArithmeticException if the cell would leave the 64-bit range; nothing is written
     */
    void add(CounterName counter, String cell, long delta);

    /**
     * Like {@link #add}, then returns the counter's total (the sum of all its cells) read in the same
     * transaction, so that it includes this delta.
     */
    long addAndGet(CounterName counter, String cell, long delta);

    /**
     * The counter's total: the sum of its cells and of its unfolded deltas, 0 if it has none.
     *
     * @throws ArithmeticException if the sum leaves the 64-bit range
     */
    long get(CounterName counter);

    /** The totals of several counters in one round trip; counters with no cell and no delta are absent. */
    Map<CounterName, Long> getAll(Collection<CounterName> counters);

    /**
     * Removes everything stored for the counter: cells, deltas, shard count, maximum shards. Returns whether there
     * was any cell or delta.
     */
    boolean delete(CounterName counter);

    /**
     * Names of the counters that have a cell, a delta or a maximum shard, in the database's order of names, each
     * once, starting after {@code after} (null: from the first), at most {@code limit}.
     */
    List<CounterName> counterNames(@Nullable CounterName after, int limit);

    /** Every cell of the counter with its value; empty if it has none. */
    Map<String, Long> cells(CounterName counter);

    // ---- versioned compare-and-set ----

    /** A cell's value and version, if the cell exists. */
    Optional<VersionedValue> read(CounterName counter, String cell);

    /**
     * Sets a cell to {@code newValue} if its version is still {@code expectedVersion}, raising the version by one;
     * an {@code expectedVersion} of 0 means the cell must not exist yet, and creates it with version 1.
     *
     * @return whether the cell was written; {@code false} (a conflict) writes nothing
     */
    boolean compareAndSet(CounterName counter, String cell, long expectedVersion, long newValue);

    // ---- shard counts ----

    /** The counter's persisted shard count, if one was ever stored. */
    OptionalInt shardCount(CounterName counter);

    /**
     * Raises the counter's persisted shard count to at least {@code shards}; it never goes down.
     *
     * @return the shard count stored now (at least {@code shards})
     */
    int growShardCount(CounterName counter, int shards);

    // ---- batches with an idempotency key ----

    /**
     * Adds each delta to its counter's {@code cell} and records {@code key}, all in one transaction, unless
     * {@code key} was recorded before. The key is written first, so a retry of the same key and deltas is safe
     * whatever happened to an earlier attempt: it waits for an attempt still in flight, and applies the deltas
     * only if no attempt committed. Keys should name their content (a digest of the deltas), so that a recorded key
     * also proves what it applied.
     *
     * @return true if this call applied the deltas; false if the key was recorded already (nothing written), which
     *     the caller may take as its own earlier attempt only if it made one whose outcome is unknown
     * @throws dev.counters.CounterOverflowException naming a counter that would overflow; nothing is written
     */
    boolean applyBatch(String key, String cell, Map<CounterName, Long> deltas, Instant now);

    /** Forgets batch keys recorded before {@code appliedBefore}; returns how many. */
    int pruneBatchKeys(Instant appliedBefore);

    // ---- delta log ----

    /**
     * Appends a delta under an id unique for the counter, unless a delta is stored under that id already (unfolded,
     * or folded and not yet purged); then it writes nothing and reports what is stored. A caller may take that as its
     * own earlier attempt only if it made one whose outcome is unknown and the stored delta is its delta: anything
     * else is somebody else's row, and acknowledging it would lose an increment.
     *
     * @return empty if this call appended the delta; otherwise the delta already stored under {@code deltaId}
     */
    OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now);

    /** The counter's value without its unfolded deltas: the sum of its cells. */
    long getFolded(CounterName counter);

    /** How many deltas of the counter are not folded yet, and when the oldest was appended. */
    DeltaBacklog deltaBacklog(CounterName counter);

    /**
     * In one transaction, adds the sum of the counter's unfolded deltas to {@code cell} and marks them folded;
     * folded deltas appended before {@code purgeBefore} are deleted. Deltas appended meanwhile stay for the next
     * fold. Safe to run again after a failure: it is all or nothing. Folded deltas are kept until then so that a
     * late retry of an append still finds its id.
     *
     * @return how many deltas were folded
     */
    int foldDeltas(CounterName counter, String cell, Instant purgeBefore);

    // ---- maximum over shards ----

    /** Raises shard {@code shard} of the counter's maximum record to {@code value} if it is lower (or absent). */
    void raiseShard(CounterName counter, int shard, long value);

    /** The maximum over the counter's shards, if it has any. */
    OptionalLong maxOfShards(CounterName counter);

    // ---- sequences ----

    /**
     * Reserves up to {@code count} values of a sequence in one transaction: the next {@code count} values, or fewer
     * when fewer are left before {@code maxValue}. A sequence that does not exist yet starts at {@code start}.
     * Values reserved are never reserved again, whatever happens to the caller.
     *
     * @throws dev.counters.SequenceExhaustedException when no value is left; nothing is reserved
     */
    Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue);

    /** Removes the sequence, so that it starts again at its start value. */
    boolean deleteSequence(CounterName sequence);

    // ---- leases ----

    /**
     * Takes or renews the lease {@code key} for {@code owner} until {@code expiresAt}: succeeds when nobody holds
     * it, when its holder's lease ended at or before {@code now}, or when {@code owner} already holds it.
     *
     * @return whether {@code owner} holds the lease now
     */
    boolean tryLease(String key, String owner, Instant expiresAt, Instant now);

    /** Gives up the lease if {@code owner} holds it. */
    void releaseLease(String key, String owner);

    // ---- optional capabilities ----

    /**
     * This store as {@code capability}, when it offers it: {@link SessionLocks}, for example. Unless overridden, the
     * store itself when it implements the interface. A wrapper passes the question on to the store it wraps.
     */
    default <T> Optional<T> capability(Class<T> capability) {
        return capability.isInstance(this) ? Optional.of(capability.cast(this)) : Optional.empty();
    }
}
