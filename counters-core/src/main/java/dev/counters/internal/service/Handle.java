package dev.counters.internal.service;

import dev.counters.Counter;
import dev.counters.CounterName;

/** A counter resolved once: its name validated, its rule chosen. */
interface Handle extends Counter {

    /** The name as given: the key of the caches. */
    String key();

    Route route();

    /** The counter its strategy stores now: this one, or a windowed counter's current window. */
    CounterName stored();
}
