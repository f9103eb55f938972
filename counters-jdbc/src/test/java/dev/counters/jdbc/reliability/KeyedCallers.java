package dev.counters.jdbc.reliability;

import dev.counters.CounterService;
import dev.counters.CountersException;
import dev.counters.IdempotencyKey;
import io.github.resilience4j.retry.RetryRegistry;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Callers that repeat an increment under its key until it is settled, for at most a minute: an unknown outcome
 * ({@link dev.counters.CountersException#mayHaveBeenApplied()}) and a sure failure alike.
 */
final class KeyedCallers {

    final AtomicLong unknownOutcomes = new AtomicLong();
    /** Keyed writes the strategies' keyed retry repeated after an unknown outcome, before the caller saw it. */
    final AtomicLong retriedUnknown = new AtomicLong();

    final RetryRegistry retries = RetryRegistry.ofDefaults();

    KeyedCallers() {
        retries.getEventPublisher().onEntryAdded(added -> {
            if (added.getAddedEntry().getName().endsWith("-keyed")) {
                added.getAddedEntry().getEventPublisher().onRetry(retry -> {
                    if (retry.getLastThrowable() instanceof CountersException e && e.mayHaveBeenApplied()) {
                        retriedUnknown.incrementAndGet();
                    }
                });
            }
        });
    }

    Workload.Incrementer of(CounterService service) {
        return (counter, delta) -> {
            IdempotencyKey key = IdempotencyKey.of(UUID.randomUUID().toString());
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            for (int attempt = 1; ; attempt++) {
                try {
                    service.increment(counter, delta, key);
                    return;
                } catch (CountersException e) {
                    if (e.mayHaveBeenApplied()) {
                        unknownOutcomes.incrementAndGet();
                    }
                    if (System.nanoTime() > deadline) {
                        throw e;
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Math.min(100, 5L * attempt)));
                }
            }
        };
    }
}
