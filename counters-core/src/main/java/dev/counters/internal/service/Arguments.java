package dev.counters.internal.service;

import dev.counters.CounterName;
import dev.counters.IdempotencyKey;

/** The checks of a counter's arguments, shared by its handles. */
final class Arguments {

    private Arguments() {}

    /**
     * Checks the key, and that the counter's strategy takes keys; keys are recorded from now on, so the service
     * forgets them after their retention.
     */
    static IdempotencyKey checkKey(Route route, CounterName name, IdempotencyKey key, Housekeeping housekeeping) {
        if (key == null) {
            throw new IllegalArgumentException("Idempotency key for counter '" + name + "' must not be null");
        }
        if (!route.settings().takesIdempotencyKeys()) {
            throw new IllegalStateException("Counter '" + name + "' uses the " + route.strategyName() + " strategy,"
                    + " which takes no idempotency keys: it hands out values rather than counting each increment"
                    + " exactly once");
        }
        housekeeping.start();
        return key;
    }

    static long checkDelta(CounterName name, long delta) {
        if (delta == 0) {
            throw new IllegalArgumentException("Delta for counter '" + name + "' must not be 0");
        }
        return delta;
    }
}
