/**
 * The counters API: {@link dev.counters.CounterService} and the types it takes and returns.
 */
@NullMarked
package dev.counters;

import org.jspecify.annotations.NullMarked;
