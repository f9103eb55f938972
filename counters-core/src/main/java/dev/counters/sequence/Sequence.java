package dev.counters.sequence;

/** A source of unique, increasing numbers. Thread-safe. */
public interface Sequence {

    /** The sequence's name. */
    String name();

    /** The settings the sequence's name selected when it was created: its mode, block sizes, start and step. */
    SequenceSettings settings();

    /**
     * The next number: never handed out before by this sequence, in any process; greater than every number this
     * thread got from it before.
     *
     * @throws dev.counters.SequenceExhaustedException past the sequence's maximum
     */
    long next();

    /**
     * {@code count} consecutive numbers at once ({@code first}, {@code first + increment}, ...), or fewer when the
     * sequence reaches its maximum.
     */
    Reservation next(int count);
}
