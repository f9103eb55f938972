package dev.counters.internal;

import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The one source of time of a service's strategies: the injected {@link Clock} and a monotonic nanosecond ticker
 * ({@link System#nanoTime()} unless a test supplies another). Its views differ only in how they treat a wall clock
 * that is stepped (NTP, a VM resumed):
 *
 * <ul>
 *   <li>{@link #now()}: the wall clock as it is, for lease expiry shared with other processes;
 *   <li>{@link #steady()}: the wall clock when the service started, advanced by the ticker only. The timestamps that
 *       guard exactly-once retries (when a delta was appended, when a flush key was written, and the purge horizons
 *       computed from them) use it, so that a clock set back by days cannot let a purge remove an id a retry relies
 *       on;
 *   <li>{@link #elapsedNanos()}: the wall clock's forward movement only, for cache expiry: a clock set back would
 *       otherwise keep cached entries young for the size of the step. Lock-free, since a cache reads it on every
 *       write;
 *   <li>{@link #nanoTime()}: the ticker, for real waits (timeouts, lag) that must pass even while the clock is stopped.
 * </ul>
 */
public final class Time {

    private final Clock clock;
    private final LongSupplier ticker;
    private final Instant start;
    private final long startNanos;
    /** The last wall-clock millisecond seen, and the forward movements summed up to it. */
    private final AtomicLong lastMillis;
    private final AtomicLong elapsedMillis = new AtomicLong();

    public Time(Clock clock, LongSupplier ticker) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.start = clock.instant();
        this.startNanos = ticker.getAsLong();
        this.lastMillis = new AtomicLong(clock.millis());
    }

    public static Time of(Clock clock) {
        return new Time(clock, System::nanoTime);
    }

    public Instant now() {
        return clock.instant();
    }

    public Instant steady() {
        return start.plusNanos(ticker.getAsLong() - startNanos);
    }

    public long nanoTime() {
        return ticker.getAsLong();
    }

    public long elapsedNanos() {
        long now = clock.millis();
        // Written only when the clock moved, so that readers within one millisecond share the cache line. A step
        // back moves lastMillis back and adds nothing; threads racing at a tick may add a millisecond twice, which
        // only expires entries a little early.
        if (now != lastMillis.get()) {
            long last = lastMillis.getAndSet(now);
            if (now > last) {
                elapsedMillis.addAndGet(now - last);
            }
        }
        return elapsedMillis.get() * 1_000_000;
    }
}
