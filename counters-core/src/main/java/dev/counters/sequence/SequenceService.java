package dev.counters.sequence;

import dev.counters.spi.CounterStore;

/**
 * Hands out unique, increasing numbers (order ids, invoice numbers) from named sequences, configured per name or
 * pattern like counters. Thread-safe.
 */
public interface SequenceService extends AutoCloseable {

    /** Starts building a service on {@code store}. */
    static SequenceServiceBuilder builder(CounterStore store) {
        return new SequenceServiceBuilder(store);
    }

    /** The sequence of that name, created on first use (its name follows the counter-name rules). */
    Sequence sequence(String name);

    /** See {@link Sequence#next()}. */
    default long next(String name) {
        return sequence(name).next();
    }

    /** See {@link Sequence#next(int)}. */
    default Reservation next(String name, int count) {
        return sequence(name).next(count);
    }

    /** Stops background reservations. Numbers reserved but not handed out are a gap. */
    @Override
    void close();
}
