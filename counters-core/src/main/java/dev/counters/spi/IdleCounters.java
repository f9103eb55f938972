package dev.counters.spi;

import dev.counters.CounterName;
import java.util.Collection;
import java.util.Map;

/**
 * Removing counters nobody writes any more: a rule's {@code expire-after-idle}, for any strategy but
 * {@code monotonic}. Every write raises a cell's version, so a counter whose cells kept their versions between two
 * looks was not written between them: the expiry compares versions, and costs the write path nothing.
 */
public interface IdleCounters {

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
