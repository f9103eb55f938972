package dev.counters.observation;

import io.micrometer.common.KeyValues;

/**
 * The default names and tags of the store operations' observations: {@code counters.store.write},
 * {@code counters.store.flush}, {@code counters.store.recount} and {@code counters.store.reserve}, tagged
 * {@code rule} and {@code strategy} for counters and {@code mode} for sequences. Counter names are not tags: there may
 * be millions, and they may identify people.
 */
public class DefaultCountersObservationConvention implements CountersObservationConvention {

    /** A shared instance. */
    public static final DefaultCountersObservationConvention INSTANCE = new DefaultCountersObservationConvention();

    @Override
    public KeyValues getLowCardinalityKeyValues(CountersObservationContext context) {
        if (context.getSequenceMode() != null) {
            return KeyValues.of("mode", context.getSequenceMode());
        }
        return KeyValues.of(
                "rule", String.valueOf(context.getRule()), "strategy", String.valueOf(context.getStrategy()));
    }
}
