package dev.counters;

/**
 * An optimistic increment lost the race to other writers on every attempt it was allowed. Nothing was written for
 * it; the increment can be repeated safely.
 */
public class CounterContentionException extends CountersException {

    private static final long serialVersionUID = 1L;

    private final String counter;
    private final int attempts;

    public CounterContentionException(CounterName counter, int attempts) {
        super(
                "Counter '" + counter + "' was changed by other writers during each of " + attempts
                        + " attempts; nothing was written",
                null);
        this.counter = counter.value();
        this.attempts = attempts;
    }

    public String counter() {
        return counter;
    }

    public int attempts() {
        return attempts;
    }
}
