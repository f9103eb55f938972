package dev.counters.spi;

import dev.counters.CounterName;
import java.util.List;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A maximum over shards, whose value only grows: the {@code monotonic} strategy. The service also lists the names
 * that have one, to refuse a counter moved between {@code monotonic} and a counting strategy.
 */
public interface Maxima {

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
