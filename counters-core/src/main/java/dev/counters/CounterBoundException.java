package dev.counters;

/**
 * A change of a bounded counter would have left its bounds, so it was not made: thrown where a method has no way to
 * answer "no" ({@link CounterService#increment(String, long)} and the like); {@link CounterService#tryIncrement}
 * returns false instead. Nothing was written, so {@link #mayHaveBeenApplied()} is false; repeating it is safe, and
 * succeeds once the counter has room again.
 */
public class CounterBoundException extends CountersException {

    private static final long serialVersionUID = 1L;

    private final String counter;
    private final long delta;
    private final long bound;

    /**
     * @param value the counter's value that refused the change
     * @param held the units held toward that bound by open reservations
     */
    public CounterBoundException(CounterName counter, long delta, long bound, long value, long held) {
        super(
                "Counter '" + counter + "' was not changed by " + delta + ": it would go "
                        + (delta < 0 ? "below its minimum " : "above its maximum ") + bound + " (value " + value
                        + (held == 0 ? "" : ", " + held + " held") + ")",
                null);
        this.counter = counter.value();
        this.delta = delta;
        this.bound = bound;
    }

    public String counter() {
        return counter;
    }

    public long delta() {
        return delta;
    }

    /** The bound the change would have crossed. */
    public long bound() {
        return bound;
    }
}
