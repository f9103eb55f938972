package dev.counters;

/** A delta would take a counter past the signed 64-bit range. Nothing was written. */
public class CounterOverflowException extends ArithmeticException {

    private static final long serialVersionUID = 1L;

    private final String counter;
    private final long delta;

    public CounterOverflowException(CounterName counter, long delta) {
        super("Adding " + delta + " to counter '" + counter + "' would take it past "
                + (delta > 0 ? "Long.MAX_VALUE" : "Long.MIN_VALUE") + "; nothing was written");
        this.counter = counter.value();
        this.delta = delta;
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
