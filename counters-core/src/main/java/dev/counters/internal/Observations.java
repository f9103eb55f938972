package dev.counters.internal;

import dev.counters.observation.CountersObservationContext;
import dev.counters.observation.CountersObservationConvention;
import dev.counters.observation.DefaultCountersObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The library's Micrometer observations: the store operations that are not one caller's increment, each timed (and
 * traced, with a tracing bridge) by whatever handlers the application's {@link ObservationRegistry} has, named and
 * tagged by a {@link CountersObservationConvention} ({@code counters.store.*} by default, apart from the meters of
 * {@code CounterService.statistics()}: {@code counters.flush} is the flusher's total time, for example).
 */
public final class Observations {

    /** No observations: nothing is built per operation. */
    public static final Observations NONE =
            new Observations(ObservationRegistry.NOOP, DefaultCountersObservationConvention.INSTANCE);

    private final ObservationRegistry registry;
    private final CountersObservationConvention convention;

    public Observations(ObservationRegistry registry, CountersObservationConvention convention) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.convention = Objects.requireNonNull(convention, "convention");
    }

    /** Runs {@code work} as an observation of {@code context}; at once, without building anything, when none is kept. */
    public <T> T observe(Supplier<CountersObservationContext> context, Supplier<T> work) {
        if (registry.isNoop()) {
            return work.get();
        }
        CountersObservationContext observed = context.get();
        // Named here, from the operation: Micrometer's getName() cannot tell one operation from another. The
        // registry's predicates see this name.
        return Observation.createNotStarted(convention.getName(observed), () -> observed, registry)
                .observationConvention(convention)
                .observe(work);
    }
}
