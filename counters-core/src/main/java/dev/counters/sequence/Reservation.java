package dev.counters.sequence;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;

/**
 * Values reserved from a sequence: {@code count} values starting at {@code first}, each {@code increment} apart.
 */
public record Reservation(long first, long count, long increment) {

    public Reservation {
        if (count < 1) {
            throw new IllegalArgumentException("a reservation holds at least one value, was " + count);
        }
    }

    /**
     * The reservation of up to {@code count} values starting at {@code next}, and fewer when fewer are left
     * before {@code maxValue}: the arithmetic every store shares, without overflow.
     *
     * @throws SequenceExhaustedException when {@code next} is already past {@code maxValue}
     */
    public static Reservation starting(CounterName sequence, long next, long count, long increment, long maxValue) {
        if (next > maxValue) {
            throw new SequenceExhaustedException(sequence.value(), maxValue);
        }
        // maxValue - next is at most 2^64 - 1 (next <= maxValue): unsigned, as a start far below 0 needs.
        long steps = Long.divideUnsigned(maxValue - next, increment);
        return new Reservation(next, Long.compareUnsigned(steps, count - 1) >= 0 ? count : steps + 1, increment);
    }

    /** The {@code index}th value (0-based). */
    public long value(long index) {
        return first + index * increment;
    }

    public long last() {
        return value(count - 1);
    }

    /**
     * Where the next reservation starts. It cannot overflow, because a sequence's maximum is at most
     * {@code Long.MAX_VALUE - increment}.
     */
    public long next() {
        return Math.addExact(last(), increment);
    }
}
