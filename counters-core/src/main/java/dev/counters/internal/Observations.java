package dev.counters.internal;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.function.Supplier;

/**
 * The library's Micrometer observations: the store operations that are not one caller's increment, each timed (and
 * traced, with a tracing bridge) by whatever handlers the application's {@link ObservationRegistry} has. Named
 * {@code counters.store.*}, apart from the meters of {@code CounterService.statistics()} ({@code counters.flush} is
 * the flusher's total time, for example); the low-cardinality keys are {@code rule} and {@code strategy} for
 * counters, {@code mode} for sequences.
 */
public final class Observations {

    /** A buffered strategy's flush: one transaction carrying every pending delta and waiting durable increment. */
    public static final String FLUSH = "counters.store.flush";
    /** A delta-log recount: unfolded deltas folded into the counter's cell. */
    public static final String RECOUNT = "counters.store.recount";
    /** One combined write of a cell (atomic, optimistic, sharded, node), carrying the deltas of waiting callers. */
    public static final String WRITE = "counters.store.write";
    /** A sequence reservation: a block of numbers, or a gapless number in its transaction. */
    public static final String RESERVE = "counters.store.reserve";

    private Observations() {
    }

    /** Runs {@code work} as the observation {@code name}; at once, without building anything, when none is kept. */
    public static <T> T observe(ObservationRegistry registry, String name, Supplier<KeyValues> tags, Supplier<T> work) {
        if (registry.isNoop()) {
            return work.get();
        }
        return Observation.createNotStarted(name, registry).lowCardinalityKeyValues(tags.get()).observe(work);
    }
}
