package dev.counters.internal.service;

import dev.counters.spi.RateLimits;
import java.time.Duration;
import java.time.Instant;

/**
 * Deletes GCRA keys nobody used for a while, for {@link Housekeeping}: a key whose {@code tat} has passed decides as an
 * absent one, so deleting it changes no decision. A grace keeps the keys that only just passed, for a process whose
 * steady time lags the database's a little.
 */
public final class RateLimitExpiry implements Housekeeping.Task {

    /** How long past its {@code tat} a key is kept. */
    public static final Duration GRACE = Duration.ofMinutes(1);

    private final RateLimits rateLimits;

    public RateLimitExpiry(RateLimits rateLimits) {
        this.rateLimits = rateLimits;
    }

    @Override
    public int run(Instant horizon) {
        Instant before = horizon.minus(GRACE);
        long beforeNanos = before.getEpochSecond() * 1_000_000_000L + before.getNano();
        int removed = 0;
        for (int batch = 0; batch < Housekeeping.MAX_BATCHES_PER_RUN; batch++) {
            int deleted = rateLimits.deleteIdle(beforeNanos, Housekeeping.BATCH);
            removed += deleted;
            if (deleted < Housekeeping.BATCH) {
                break;
            }
        }
        return removed;
    }
}
