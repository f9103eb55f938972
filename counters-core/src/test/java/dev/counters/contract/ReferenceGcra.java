package dev.counters.contract;

import dev.counters.RateDecision;
import dev.counters.RateDecision.Outcome;
import dev.counters.RateLimit;
import java.time.Duration;

/**
 * GCRA as the textbook writes it, one key, one request at a time: what a limiter must answer. A test feeds it the same
 * requests at the same times and compares.
 */
public final class ReferenceGcra {

    private final RateLimit limit;
    private final long interval;
    private final long burst;
    private long tat = Long.MIN_VALUE;

    public ReferenceGcra(RateLimit limit) {
        this.limit = limit;
        long period = limit.period().toNanos();
        this.interval = (period + limit.permits() - 1) / limit.permits();
        this.burst = limit.burst() * interval;
    }

    /** The emission interval {@code T}: a permit's worth of time. */
    public long interval() {
        return interval;
    }

    public RateDecision acquire(long now, long permits) {
        long start = Math.max(tat, now);
        long next = start + permits * interval;
        if (next <= now + burst) {
            tat = next;
            return decision(Outcome.ALLOWED, next, now, 0);
        }
        return decision(Outcome.REFUSED, start, now, next - burst - now);
    }

    public RateDecision peek(long now) {
        long start = Math.max(tat, now);
        return start + interval <= now + burst
                ? decision(Outcome.ALLOWED, start, now, 0)
                : decision(Outcome.REFUSED, start, now, start + interval - burst - now);
    }

    private RateDecision decision(Outcome outcome, long tat, long now, long retryAfter) {
        long ahead = Math.max(0, tat - now);
        return new RateDecision(
                outcome, (burst - ahead) / interval, Duration.ofNanos(retryAfter), Duration.ofNanos(ahead), limit);
    }
}
