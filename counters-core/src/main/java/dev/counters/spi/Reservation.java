package dev.counters.spi;

/**
 * Values reserved from a sequence: {@code count} values starting at {@code first}, each {@code increment} apart.
 */
public record Reservation(long first, long count, long increment) {

    public Reservation {
        if (count < 1) {
            throw new IllegalArgumentException("a reservation holds at least one value, was " + count);
        }
    }

    /** The {@code index}th value (0-based). */
    public long value(long index) {
        return first + index * increment;
    }

    public long last() {
        return value(count - 1);
    }
}
