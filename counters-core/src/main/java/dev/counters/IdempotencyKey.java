package dev.counters;

/**
 * A caller's name for one increment, so that repeating the increment applies it at most once: a request id, a message
 * id, {@code order-4711:line-2}. An increment made with a key is applied once however often it is repeated with the
 * same key, by any process, within the service's key retention ({@link CounterServiceBuilder#keyRetention}); a repeat
 * of an increment whose outcome was unknown settles it.
 *
 * <p>A key names one increment: repeating it with another counter or another delta is an
 * {@link IdempotencyKeyReusedException}. Keys are global to the store, not per counter, so make them unique the way
 * request ids are (a UUID, or the message id with the counter's purpose).
 *
 * @param value 1 to {@value #MAX_LENGTH} printable ASCII characters, no spaces
 */
public record IdempotencyKey(String value) {

    /** The longest allowed key, in characters. */
    public static final int MAX_LENGTH = 100;

    public IdempotencyKey {
        if (value == null) {
            throw new IllegalArgumentException("Idempotency key must not be null");
        }
        if (value.isEmpty() || value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "Idempotency key is " + value.length() + " characters long; 1 to " + MAX_LENGTH + " are allowed");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < '!' || c > '~') {
                throw new IllegalArgumentException("Idempotency key contains " + String.format("U+%04X", (int) c)
                        + " at index " + i + "; allowed are printable ASCII characters without spaces");
            }
        }
    }

    /** The key, or an {@link IllegalArgumentException} naming what is wrong with it. */
    public static IdempotencyKey of(String value) {
        return new IdempotencyKey(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
