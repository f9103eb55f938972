package dev.counters;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An observation registry that keeps the context of every observation stopped in it, for tests to read. */
final class RecordedObservations {

    final ObservationRegistry registry = ObservationRegistry.create();
    final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    RecordedObservations() {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }
        });
    }
}
