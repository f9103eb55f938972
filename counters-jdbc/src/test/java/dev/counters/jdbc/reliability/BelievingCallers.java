package dev.counters.jdbc.reliability;

import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.CountersException;
import dev.counters.IdempotencyKey;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Callers that believe what the library tells them: a failure whose {@link CountersException#mayHaveBeenApplied()} is
 * false is taken as "not applied" and not repeated (the history records it as failed), as docs/exceptions.md
 * invites. Only an unknown outcome is repeated, and only under its key. If the library says "not applied" of an increment that was
 * stored, nobody repeats it and the checker sees an over-count: the callers that repeat everything
 * ({@link KeyedCallers}) would have hidden it.
 */
final class BelievingCallers {

    /** Failures taken as "not applied", and so not repeated. */
    final AtomicLong believed = new AtomicLong();
    /** Unknown outcomes repeated under their key. */
    final AtomicLong repeatedUnknown = new AtomicLong();

    /**
     * Keyed increments, repeated under the key while the outcome is unknown, for at most a minute. A repeat's "not
     * applied" speaks of that repeat only: once a call under the key had an unknown outcome, the caller keeps
     * repeating until one returns.
     */
    Workload.Incrementer keyed(CounterService service) {
        return (counter, delta) -> {
            IdempotencyKey key = IdempotencyKey.of(UUID.randomUUID().toString());
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            boolean inDoubt = false;
            for (int attempt = 1; ; attempt++) {
                try {
                    service.increment(counter, delta, key);
                    return;
                } catch (CountersException e) {
                    if (!e.mayHaveBeenApplied() && !inDoubt) {
                        believed.incrementAndGet();
                        throw e;
                    }
                    inDoubt = true;
                    if (System.nanoTime() > deadline) {
                        throw e.mayHaveBeenApplied()
                                ? e
                                : new CounterStoreException("Unsettled after a minute of repeats", e);
                    }
                    repeatedUnknown.incrementAndGet();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(100, 5L * attempt)));
                }
            }
        };
    }

    /** {@code incrementAndGet}, as a like button calls it: never repeated, a "not applied" believed. */
    Workload.Incrementer incrementAndGet(CounterService service) {
        return (counter, delta) -> {
            try {
                service.incrementAndGet(counter, delta);
            } catch (CountersException e) {
                if (!e.mayHaveBeenApplied()) {
                    believed.incrementAndGet();
                }
                throw e;
            }
        };
    }
}
