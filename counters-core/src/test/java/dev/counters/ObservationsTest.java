package dev.counters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The store operations that are not one caller's increment are observations, tagged, with their errors. */
class ObservationsTest {

    private final RecordedObservations observations = new RecordedObservations();
    private final ObservationRegistry registry = observations.registry;
    private final List<Observation.Context> stopped = observations.stopped;

    @Test
    void flushesRecountsAndCombinedWritesAreObservedWithTheirRuleAndStrategy() {
        try (CounterService counters = CounterService.builder(new InMemoryCounterStore())
                .observationRegistry(registry)
                .strategy("views.*", BufferedSettings.defaults())
                .strategy("log.*", DeltaLogSettings.defaults().withRecountAtDeltas(1))
                .build()) {
            counters.increment("orders");
            counters.incrementDurably("views.home", 2).join();
            counters.increment("log.a");
            counters.increment("log.a");

            assertThat(observed("counters.store.write", "(default)", "atomic")).isTrue();
            assertThat(observed("counters.store.flush", "views.*", "buffered")).isTrue();
            assertThat(observed("counters.store.write", "log.*", "delta-log")).isTrue();
            await().until(() -> observed("counters.store.recount", "log.*", "delta-log"));
        }
    }

    @Test
    void aFailedWriteIsObservedWithItsError() {
        CounterStore failing = new ForwardingCounterStore(new InMemoryCounterStore()) {
            @Override
            public void add(CounterName name, String cell, long delta) {
                throw new IllegalStateException("disk on fire");
            }
        };
        try (CounterService counters =
                CounterService.builder(failing).observationRegistry(registry).build()) {
            assertThatThrownBy(() -> counters.increment("orders")).hasMessageContaining("disk on fire");
        }
        assertThat(stopped).anySatisfy(context -> {
            assertThat(context.getName()).isEqualTo("counters.store.write");
            assertThat(context.getError()).hasMessageContaining("disk on fire");
        });
    }

    @Test
    void sequenceReservationsAreObservedWithTheirMode() {
        try (SequenceService sequences = SequenceService.builder(new InMemoryCounterStore())
                .observationRegistry(registry)
                .sequence("invoices", SequenceSettings.gapless())
                .build()) {
            sequences.sequence("ids").next();
            sequences.sequence("invoices").next();
        }
        assertThat(stopped)
                .filteredOn(context -> context.getName().equals("counters.store.reserve"))
                .extracting(context -> context.getLowCardinalityKeyValue("mode").getValue())
                .contains("block", "gapless");
    }

    @Test
    void withoutARegistryNothingIsObserved() {
        try (CounterService counters =
                CounterService.builder(new InMemoryCounterStore()).build()) {
            counters.increment("orders");
        }
        assertThat(stopped).isEmpty();
    }

    private boolean observed(String name, String rule, String strategy) {
        return stopped.stream()
                .anyMatch(context -> context.getName().equals(name)
                        && rule.equals(context.getLowCardinalityKeyValue("rule").getValue())
                        && strategy.equals(
                                context.getLowCardinalityKeyValue("strategy").getValue()));
    }
}
