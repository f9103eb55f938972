package dev.counters.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observations of the store operations ({@code counters.store.*}). Give one to
 * {@code CounterService.builder(store).observationConvention(...)} and {@code SequenceService.builder(store)
 * .observationConvention(...)} (with Spring Boot, declare it as a bean), usually extending
 * {@link DefaultCountersObservationConvention} to keep its tags.
 *
 * <p>One convention serves every operation, so the name comes from {@link #getName(CountersObservationContext)},
 * which sees the operation, rather than from Micrometer's {@code getName()}. To switch the observations off, register
 * an {@code ObservationPredicate} that refuses their names (with Spring Boot, a bean, or
 * {@code management.observations.enable.counters.store: false}).
 */
public interface CountersObservationConvention extends ObservationConvention<CountersObservationContext> {

    /** The observation's name for this operation; the operation's default name ({@code counters.store.write}, ...) unless overridden. */
    default String getName(CountersObservationContext context) {
        return context.getOperation().getObservationName();
    }

    @Override
    default boolean supportsContext(Observation.Context context) {
        return context instanceof CountersObservationContext;
    }
}
