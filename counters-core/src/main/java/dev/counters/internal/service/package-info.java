/**
 * The counter service behind {@link dev.counters.CounterService}: routing names to strategies, the handles it gives
 * out, windows, and the housekeeping that purges windows, prunes keys and expires idle counters. Not an API.
 */
@NullMarked
package dev.counters.internal.service;

import org.jspecify.annotations.NullMarked;
