package dev.counters;

/**
 * An idempotency key was repeated with another counter or another delta than the increment it was first recorded
 * with. Nothing was written for this call: a key names one increment, and the increment it names stays applied once.
 */
public class IdempotencyKeyReusedException extends CountersException {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final String recordedCounter;
    private final long recordedDelta;

    public IdempotencyKeyReusedException(
            IdempotencyKey key, String recordedCounter, long recordedDelta, String counter, long delta) {
        super(
                "Idempotency key '" + key + "' was recorded for adding " + recordedDelta + " to counter '"
                        + recordedCounter + "', and was repeated for adding " + delta + " to counter '" + counter
                        + "'; nothing was written. A key names one increment: use a new key for a new increment",
                null);
        this.key = key.value();
        this.recordedCounter = recordedCounter;
        this.recordedDelta = recordedDelta;
    }

    /** The counter the key was first recorded for. */
    public String recordedCounter() {
        return recordedCounter;
    }

    /** The delta the key was first recorded with. */
    public long recordedDelta() {
        return recordedDelta;
    }

    /** The key that was reused. */
    public String key() {
        return key;
    }
}
