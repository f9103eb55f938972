package dev.counters.internal;

import dev.counters.spi.CounterStore;
import dev.counters.spi.DatabaseClock;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one source of time of a service's strategies: the injected {@link Clock}, a monotonic nanosecond ticker
 * ({@link System#nanoTime()} unless a test supplies another), and the database's clock when the store tells it
 * ({@link DatabaseClock}). Its views differ in how they treat a wall clock that is wrong or stepped
 * (NTP, a VM resumed):
 *
 * <ul>
 *   <li>{@link #now()}: the wall clock as it is, for lease expiry shared with other processes and the window an
 *       increment lands in;
 *   <li>{@link #steady()}: the database's clock, read when the service starts and again at every
 *       {@link #synchronize()}, advanced by the ticker in between. The timestamps that guard exactly-once retries
 *       (when a delta was appended, when a key was recorded) and the horizons of every purge use it: every process
 *       on the database then stamps and purges on the same clock, whatever the error of its own, so a JVM started
 *       with its clock hours fast, or one behind another, cannot purge early. Without a database clock (the
 *       in-memory store, shared only inside one JVM): the wall clock when the service started, advanced by the
 *       ticker;
 *   <li>{@link #elapsedNanos()}: the wall clock's forward movement only, for cache expiry: a clock set back would
 *       otherwise keep cached entries young for the size of the step. Lock-free, since a cache reads it on every
 *       write;
 *   <li>{@link #nanoTime()}: the ticker, for real waits (timeouts, lag) that must pass even while the clock is stopped.
 * </ul>
 */
public final class Time {

    /** A reading of the database's clock that took longer is not used: it could be off by half of it. */
    static final long MAX_ROUND_TRIP_NANOS = 1_000_000_000L;

    /** Steady time {@code time} at ticker value {@code nanos}. */
    private record Anchor(Instant time, long nanos) {}

    private final Clock clock;
    private final LongSupplier ticker;
    private final @Nullable Supplier<Instant> databaseClock;
    private volatile Anchor anchor;
    /** Whether {@link #anchor} is a reading of the database's clock, rather than the wall clock at start. */
    private volatile boolean onDatabase;
    /** The last wall-clock millisecond seen, and the forward movements summed up to it. */
    private final AtomicLong lastMillis;

    private final AtomicLong elapsedMillis = new AtomicLong();

    public Time(Clock clock, LongSupplier ticker) {
        this(clock, ticker, null);
    }

    /** {@code databaseClock}: reads the database's clock (a round trip); null for none. */
    public Time(Clock clock, LongSupplier ticker, @Nullable Supplier<Instant> databaseClock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.databaseClock = databaseClock;
        this.anchor = new Anchor(clock.instant(), ticker.getAsLong());
        this.lastMillis = new AtomicLong(clock.millis());
    }

    public static Time of(Clock clock) {
        return new Time(clock, System::nanoTime);
    }

    /** Time on {@code store}'s database clock if it tells it; call {@link #synchronize()} before use. */
    public static Time of(Clock clock, CounterStore store) {
        return new Time(
                clock,
                System::nanoTime,
                store.capability(DatabaseClock.class)
                        .<Supplier<Instant>>map(database -> database::databaseTime)
                        .orElse(null));
    }

    /** Whether {@link #steady()} follows the database's clock. */
    public boolean hasDatabaseClock() {
        return databaseClock != null;
    }

    /**
     * Reads the database's clock and puts steady time on it (the reading is taken as made halfway through the round
     * trip). A later reading whose round trip took over a second is not used; the first is used whatever its round
     * trip, since its error, half of that, is still far below the wall clock's, which may be hours off. Does nothing
     * without a database clock.
     *
     * @return how far the wall clock is ahead of the database's (negative: behind); empty without a database clock
     * @throws RuntimeException the store's exception when the database cannot be read; steady time stays as it was
     */
    public Optional<Duration> synchronize() {
        if (databaseClock == null) {
            return Optional.empty();
        }
        long before = ticker.getAsLong();
        Instant database = databaseClock.get();
        long after = ticker.getAsLong();
        if (!onDatabase || after - before <= MAX_ROUND_TRIP_NANOS) {
            anchor = new Anchor(database, before + (after - before) / 2);
            onDatabase = true;
        }
        return Optional.of(Duration.between(steady(), clock.instant()));
    }

    public Instant now() {
        return clock.instant();
    }

    public Instant steady() {
        Anchor at = anchor;
        return at.time().plusNanos(ticker.getAsLong() - at.nanos());
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
