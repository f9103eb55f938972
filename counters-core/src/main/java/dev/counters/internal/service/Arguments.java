package dev.counters.internal.service;

import dev.counters.CounterName;
import dev.counters.IdempotencyKey;
import dev.counters.internal.strategy.Bounding;
import java.time.Duration;

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

    /**
     * The counter's bounded strategy.
     *
     * @throws IllegalStateException naming the counter, its strategy and rule, when the strategy has no bounds
     */
    static Bounding bounding(Route route, CounterName name) {
        if (route.strategy() instanceof Bounding bounding) {
            return bounding;
        }
        throw new IllegalStateException("Counter '" + name + "' uses the " + route.strategyName()
                + " strategy of rule '"
                + route.rule() + "' and has no bounds; give it strategy: bounded (BoundedSettings) to use tryIncrement,"
                + " reserve or bounded()");
    }

    /** A hold's time to live: from 1 s to the counter's {@code max-hold-ttl}. */
    static Duration checkTtl(CounterName name, Duration ttl, Duration max) {
        if (ttl == null || ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(max) > 0) {
            throw new IllegalArgumentException("A hold of counter '" + name + "' needs a time to live from 1s to its"
                    + " max-hold-ttl " + max + ", was " + ttl);
        }
        return ttl;
    }

    static long checkDelta(CounterName name, long delta) {
        if (delta == 0) {
            throw new IllegalArgumentException("Delta for counter '" + name + "' must not be 0");
        }
        return delta;
    }
}
