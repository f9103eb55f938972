package dev.counters;

/** A sequence has handed out every value up to its maximum. It never wraps around. */
public class SequenceExhaustedException extends CountersException {

    private static final long serialVersionUID = 1L;

    public SequenceExhaustedException(String sequence, long maxValue) {
        super(
                "Sequence '" + sequence + "' is exhausted: every value up to its maximum " + maxValue
                        + " was handed out",
                null);
    }
}
