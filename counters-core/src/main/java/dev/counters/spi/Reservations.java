package dev.counters.spi;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;

/** The arithmetic of reserving sequence values, shared by stores: what {@code next} allows, without overflow. */
public final class Reservations {

    private Reservations() {
    }

    /**
     * The reservation of up to {@code count} values starting at {@code next}, and fewer when fewer are left before
     * {@code maxValue}.
     *
     * @throws SequenceExhaustedException when {@code next} is already past {@code maxValue}
     */
    public static Reservation of(CounterName sequence, long next, long count, long increment, long maxValue) {
        if (next > maxValue) {
            throw new SequenceExhaustedException(sequence.value(), maxValue);
        }
        long left = (maxValue - next) / increment + 1; // no overflow: next <= maxValue, increment >= 1
        return new Reservation(next, Math.min(count, left), increment);
    }

    /**
     * The value after a reservation: where the next one starts. It cannot overflow, because a sequence's maximum is
     * at most {@code Long.MAX_VALUE - increment}.
     */
    public static long after(Reservation reservation) {
        return Math.addExact(reservation.last(), reservation.increment());
    }
}
