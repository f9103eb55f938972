package dev.counters;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.memory.InMemoryCounterStore;
import dev.counters.observation.CountersObservationContext;
import dev.counters.observation.CountersObservationContext.Operation;
import dev.counters.observation.DefaultCountersObservationConvention;
import dev.counters.sequence.SequenceService;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A convention renames and tags the store operations' observations; a predicate switches them off. */
class ObservationConventionTest {

    private final RecordedObservations observations = new RecordedObservations();
    private final ObservationRegistry registry = observations.registry;
    private final List<Observation.Context> stopped = observations.stopped;

    /** Renames writes only, keeps the default tags, and tags each observation with its counter's or sequence's name. */
    static final class Renaming extends DefaultCountersObservationConvention {

        @Override
        public String getName(CountersObservationContext context) {
            return context.getOperation() == Operation.WRITE ? "app.counter.writes" : super.getName(context);
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(CountersObservationContext context) {
            return super.getLowCardinalityKeyValues(context).and("counter", String.valueOf(context.getCounterName()));
        }
    }

    @Test
    void aConventionRenamesAndTagsTheObservations() {
        try (CounterService counters = CounterService.builder(new InMemoryCounterStore())
                        .observationRegistry(registry)
                        .observationConvention(new Renaming())
                        .build();
                SequenceService sequences = SequenceService.builder(new InMemoryCounterStore())
                        .observationRegistry(registry)
                        .observationConvention(new Renaming())
                        .build()) {
            counters.increment("orders");
            sequences.sequence("invoices").next();
        }
        assertThat(stopped).anySatisfy(context -> {
            assertThat(context.getName()).isEqualTo("app.counter.writes");
            assertThat(context.getLowCardinalityKeyValue("counter").getValue()).isEqualTo("orders");
            assertThat(context.getLowCardinalityKeyValue("strategy").getValue()).isEqualTo("atomic");
        });
        assertThat(stopped).anySatisfy(context -> {
            assertThat(context.getName()).isEqualTo("counters.store.reserve");
            assertThat(context.getLowCardinalityKeyValue("counter").getValue()).isEqualTo("invoices");
            assertThat(context.getLowCardinalityKeyValue("mode").getValue()).isEqualTo("block");
        });
        assertThat(stopped).noneMatch(context -> context.getName().equals("counters.store.write"));
    }

    @Test
    void aPredicateSwitchesThemOff() {
        registry.observationConfig().observationPredicate((name, context) -> !name.startsWith("counters.store."));
        try (CounterService counters = CounterService.builder(new InMemoryCounterStore())
                .observationRegistry(registry)
                .build()) {
            counters.increment("orders");
            assertThat(counters.get("orders")).isEqualTo(1);
        }
        assertThat(stopped).isEmpty();
    }
}
