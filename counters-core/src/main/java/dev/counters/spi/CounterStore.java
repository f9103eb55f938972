package dev.counters.spi;

import dev.counters.CounterName;
import java.util.Collection;
import java.util.Map;

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

    /** Removes every cell of the counter; returns whether there was any. */
    boolean delete(CounterName counter);
}
