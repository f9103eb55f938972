package dev.counters.sequence;

import dev.counters.CounterName;
import dev.counters.internal.Observations;
import dev.counters.internal.Retries;
import dev.counters.observation.CountersObservationContext;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Sequences;
import io.github.resilience4j.retry.Retry;
import java.util.Optional;

/**
 * Every number reserved in a transaction of its own before it is returned, so numbers are consecutive: a gap can
 * only come from a caller that got a number and then failed to use it, or from a reservation whose commit outcome
 * was unknown (reported as an exception). One round trip and one commit per number: slow, by design.
 *
 * <p>Inside a caller's transaction that the store can join, the number is reserved in that transaction: if it rolls
 * back, so does the number, and the next caller gets it. The sequence's row stays locked until the transaction
 * ends, so such transactions take their numbers one after another.
 */
final class GaplessSequence implements Sequence {

    private final CounterName name;
    private final CounterStore store;
    private final Sequences sequences;
    private final Retry retry;
    private final SequenceSettings settings;
    private final Observations observations;

    GaplessSequence(
            CounterName name,
            CounterStore store,
            Sequences sequences,
            Retry retry,
            SequenceSettings settings,
            Observations observations) {
        this.name = name;
        this.store = store;
        this.sequences = sequences;
        this.retry = retry;
        this.settings = settings;
        this.observations = observations;
    }

    @Override
    public String name() {
        return name.value();
    }

    @Override
    public SequenceSettings settings() {
        return settings;
    }

    @Override
    public long next() {
        return next(1).first();
    }

    @Override
    public Reservation next(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("Sequence '" + name + "': count must be >= 1, was " + count);
        }
        Optional<Sequences> callerTransaction =
                store.callerTransaction().flatMap(joined -> joined.capability(Sequences.class));
        if (callerTransaction.isPresent()) {
            // Not retried: the database may have rolled back the caller's whole transaction.
            return reserve(callerTransaction.get(), count);
        }
        return Retries.write(retry, () -> reserve(sequences, count));
    }

    private Reservation reserve(Sequences from, int count) {
        return observations.observe(
                () -> CountersObservationContext.sequence(name.value(), "gapless"),
                () -> from.reserve(name, count, settings.start(), settings.increment(), settings.maxValue()));
    }
}
