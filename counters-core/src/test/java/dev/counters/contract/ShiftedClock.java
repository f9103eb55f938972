package dev.counters.contract;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/** The system clock shifted by an amount the test sets: a host whose clock is wrong, then corrected (NTP steps it). */
public final class ShiftedClock extends Clock {

    private final AtomicReference<Duration> shift;

    public ShiftedClock(Duration shift) {
        this.shift = new AtomicReference<>(shift);
    }

    /** Sets the shift from the system clock: {@link Duration#ZERO} for a clock corrected. */
    public void shift(Duration shift) {
        this.shift.set(shift);
    }

    @Override
    public Instant instant() {
        return Instant.now().plus(shift.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException();
    }
}
