package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Storage for counters, as cells: a counter is the sum of its cells, and each cell is a signed 64-bit value
 * addressed by the counter's name and a cell id. A strategy decides which cells it writes: one ({@code atomic}),
 * one per shard ({@code sharded}), one per node ({@code node}). Because every such strategy reads the same sum,
 * moving a counter from one of them to another keeps its value.
 *
 * <p>Each method is atomic. A method that fails with {@link dev.counters.TransientStoreException} wrote nothing;
 * any other failure of a write leaves its outcome unknown. Implementations are thread-safe and pass counter names
 * and cell ids to the database only as bind values.
 */
public interface CounterStore {

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
     * The counter's total: the sum of its cells, 0 if it has none.
     *
     * @throws ArithmeticException if the sum leaves the 64-bit range
     */
    long get(CounterName counter);

    /** The totals of several counters in one round trip; counters without cells are absent from the result. */
    Map<CounterName, Long> getAll(Collection<CounterName> counters);

    /** Removes every cell of the counter (and its shard count); returns whether there was any cell. */
    boolean delete(CounterName counter);

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
}
