package dev.counters.sequence;

import dev.counters.internal.NameRules;
import dev.counters.internal.Observations;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.observation.CountersObservationConvention;
import dev.counters.observation.DefaultCountersObservationConvention;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Sequences;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Builds a {@link SequenceService}: default settings, and settings for particular sequences by exact name or
 * pattern ({@code *}, {@code ?}); an exact name wins over patterns, and the first matching pattern wins.
 */
public final class SequenceServiceBuilder {

    private final CounterStore store;
    private SequenceSettings defaults = SequenceSettings.defaults();
    private final Map<String, SequenceSettings> rules = new LinkedHashMap<>();
    private RetryRegistry retries = RetryRegistry.ofDefaults();
    private ObservationRegistry observations = ObservationRegistry.NOOP;
    private CountersObservationConvention observationConvention = DefaultCountersObservationConvention.INSTANCE;

    SequenceServiceBuilder(CounterStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    public SequenceServiceBuilder defaultSettings(SequenceSettings settings) {
        this.defaults = Objects.requireNonNull(settings, "settings");
        return this;
    }

    public SequenceServiceBuilder sequence(String nameOrPattern, SequenceSettings settings) {
        NameRules.add(rules, nameOrPattern, settings, "A sequence configuration");
        return this;
    }

    /**
     * Where sequences get their one retry, the instance {@code counters-sequences}: used as it is if the registry
     * holds it, else registered with the default (reservations the database rolled back, up to 10 attempts). A
     * registry of this service's own unless set.
     */
    public SequenceServiceBuilder retryRegistry(RetryRegistry retries) {
        this.retries = Objects.requireNonNull(retries, "retries");
        return this;
    }

    /**
     * Where reservations are reported as the Micrometer observation {@code counters.store.reserve}, tagged with the
     * sequence's mode. None unless set.
     */
    public SequenceServiceBuilder observationRegistry(ObservationRegistry observations) {
        this.observations = Objects.requireNonNull(observations, "observations");
        return this;
    }

    /**
     * How reservations' observations are named and tagged; {@link DefaultCountersObservationConvention} unless set.
     */
    public SequenceServiceBuilder observationConvention(CountersObservationConvention convention) {
        this.observationConvention = Objects.requireNonNull(convention, "convention");
        return this;
    }

    /**
     * Builds the service.
     *
     * @throws IllegalStateException if the store does not offer {@link Sequences}
     */
    public SequenceService build() {
        Sequences sequences = store.capability(Sequences.class)
                .orElseThrow(() -> new IllegalStateException("Sequences need a store that offers Sequences, and "
                        + store.getClass().getName() + " does not"));
        return new DefaultSequenceService(
                store,
                sequences,
                retries.retry("counters-sequences", StrategyContext::transientFailures),
                NameRules.of(rules, defaults),
                new Observations(observations, observationConvention));
    }
}
