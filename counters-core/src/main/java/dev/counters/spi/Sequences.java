package dev.counters.spi;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;
import dev.counters.sequence.Reservation;

/** Sequences that hand out values a block at a time: every {@link dev.counters.sequence.SequenceService}. */
public interface Sequences {

    /**
     * Reserves up to {@code count} values of a sequence in one transaction: the next {@code count} values, or
     * fewer when fewer are left before {@code maxValue}. A sequence that does not exist yet starts at
     * {@code start}. Values reserved are never reserved again, whatever happens to the caller.
     *
     * @throws SequenceExhaustedException when no value is left; nothing is reserved
     */
    Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue);
}
