package dev.counters.strategy;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Clock;

/**
 * Time for cache expiry, taken from the injected clock but never going back: a wall clock stepped backwards (NTP,
 * a VM resumed) would otherwise make every cached entry look younger by the size of the step, and serve it stale for
 * that long. A forward step only expires entries early.
 */
final class ElapsedTicker implements Ticker {

    private final Clock clock;
    private long lastMillis;
    private long elapsedNanos;

    ElapsedTicker(Clock clock) {
        this.clock = clock;
        this.lastMillis = clock.millis();
    }

    @Override
    public synchronized long read() {
        long now = clock.millis();
        if (now > lastMillis) {
            elapsedNanos += (now - lastMillis) * 1_000_000;
        }
        lastMillis = now;
        return elapsedNanos;
    }
}
