/**
 * The Micrometer observations of the store operations: their {@link dev.counters.observation.CountersObservationContext}
 * and the {@link dev.counters.observation.CountersObservationConvention} that names and tags them.
 */
@NullMarked
package dev.counters.observation;

import org.jspecify.annotations.NullMarked;
