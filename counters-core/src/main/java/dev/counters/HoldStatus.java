package dev.counters;

/** Where a reservation ({@link Hold}) stands. */
public enum HoldStatus {
    /** The units are held: taken from the counter's value, and neither confirmed nor given back yet. */
    HELD,
    /** Confirmed: the change is final. */
    CONFIRMED,
    /** Released by the caller: the units went back. */
    RELEASED,
    /** Not confirmed before it expired: the units went back. A confirm after that is refused; reserve again. */
    EXPIRED,
    /** The change did not fit within the bounds when it was asked for: nothing was held. Final for its key. */
    REFUSED;

    /** Whether the hold is settled for good: every status but {@link #HELD}. */
    public boolean settled() {
        return this != HELD;
    }
}
