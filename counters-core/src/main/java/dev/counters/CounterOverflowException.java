package dev.counters;

/** A delta would take a counter past the signed 64-bit range. Nothing was written. */
public class CounterOverflowException extends CountersException {

    private static final long serialVersionUID = 1L;

    private final String counter;
    private final long delta;

    public CounterOverflowException(CounterName counter, long delta) {
        this(
                "Adding " + delta + " to counter '" + counter + "' would take it past "
                        + (delta > 0 ? "Long.MAX_VALUE" : "Long.MIN_VALUE") + "; nothing was written",
                counter,
                delta);
    }

    private CounterOverflowException(String message, CounterName counter, long delta) {
        super(message, null);
        this.counter = counter.value();
        this.delta = delta;
    }

    /** A counter's total, the sum of its parts, is outside the 64-bit range (its delta is 0). */
    public static CounterOverflowException ofTotal(CounterName counter) {
        return new CounterOverflowException(
                "The total of counter '" + counter + "' is outside the 64-bit range", counter, 0);
    }

    /** The name of the counter that would have overflowed. */
    public String counter() {
        return counter;
    }

    /** The delta that was refused. */
    public long delta() {
        return delta;
    }
}
