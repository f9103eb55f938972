package dev.counters.strategy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;

/**
 * The injected clock's time when the strategy started, advanced by elapsed time ({@link System#nanoTime()}) only. The
 * timestamps that guard exactly-once retries (when a delta was appended, when a flush key was written, and the purge
 * horizons computed from them) must not move when the wall clock is stepped: a clock set back by days would otherwise
 * let a purge remove an id that a retry still relies on.
 */
final class SteadyClock extends Clock {

    private final Instant start;
    private final long startNanos;
    private final ZoneId zone;

    SteadyClock(Clock clock) {
        this.start = clock.instant();
        this.startNanos = System.nanoTime();
        this.zone = clock.getZone();
    }

    @Override
    public Instant instant() {
        return start.plusNanos(System.nanoTime() - startNanos);
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
