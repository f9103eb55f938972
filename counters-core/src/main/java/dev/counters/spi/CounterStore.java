package dev.counters.spi;

import dev.counters.CounterName;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * <p>This interface is what every store offers. What only some strategies need is an opt-in capability, an
 * interface of this package (one file each) that a store implements when its database can:
 * <ul>
 *   <li>{@link DatabaseClock}: the database's time, for every process's stamps and purges;</li>
 *   <li>{@link Leases}: expiring claims ({@code node}, {@code delta-log}'s recounts, housekeeping);</li>
 *   <li>{@link IdempotencyKeys}: increments applied once under a caller's key;</li>
 *   <li>{@link IdempotentBatches}: batches applied once under a key ({@code buffered});</li>
 *   <li>{@link DeltaLog}: deltas under unique ids, folded by recounts ({@code delta-log});</li>
 *   <li>{@link IdleCounters}: deleting counters nobody writes ({@code expire-after-idle});</li>
 *   <li>{@link ShardCounts}: a shard count that only grows ({@code sharded});</li>
 *   <li>{@link Maxima}: a maximum over shards ({@code monotonic});</li>
 *   <li>{@link Sequences}: blocks of sequence values;</li>
 *   <li>{@link SessionLocks}: locks the database frees when their session ends ({@code node}, {@code bounded});</li>
 *   <li>{@link Escrow}: cells with rooms to a counter's bounds ({@code bounded});</li>
 *   <li>{@link Holds}: keyed changes and reservations of bounded counters;</li>
 *   <li>{@link RateLimits}: rate limits by GCRA, one guarded write per decision;</li>
 *   <li>{@link Failovers}: values that would repeat after a change of primary skip ahead instead.</li>
 * </ul>
 * A store offers a capability by implementing its interface, or, when it wraps another store or offers it only on
 * some databases, by overriding {@link #capability}. A strategy asks for the capability it needs with
 * {@link #capability} when it is built, and fails then if the store lacks it.
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
     * Removes everything stored for the counter, by any capability: cells, deltas, shard count, maximum shards, bounds,
     * operations under keys and allowance registrations.
     * Returns whether there was any cell or delta.
     */
    boolean delete(CounterName counter);

    /**
     * Names of the counters that have a cell, a delta or a maximum shard and start with {@code prefix} ("" for
     * all; the windows of a counter, say), in the database's order of names, each once, starting after
     * {@code after} (null: from the first), at most {@code limit}. A database store asks with {@code LIKE}: under a
     * language's collation the names that share a prefix need not be next to each other.
     */
    List<CounterName> counterNames(String prefix, @Nullable CounterName after, int limit);

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
}
