package dev.counters.spi;

import dev.counters.CounterName;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;
import java.util.OptionalLong;

/**
 * A log of deltas under unique ids, folded into a cell by recounts: the {@code delta-log} strategy. A counter's
 * unfolded deltas count in its value wherever it is read ({@link CounterStore#get}, {@link CounterStore#getAll},
 * {@link CounterStore#addAndGet}), whichever strategy reads it; {@link #getFolded} leaves them out.
 */
public interface DeltaLog {

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
    boolean foldDeltas(CounterName counter, String cell, Collection<String> deltaIds, long sum, Instant purgeBefore);
}
