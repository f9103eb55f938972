package dev.counters;

import org.jspecify.annotations.Nullable;

/**
 * A store operation failed in a way that guarantees it was not applied (its transaction was rolled back:
 * deadlock, serialization failure, lock wait timeout, or losing the race to insert a new row), so repeating it
 * is safe.
 */
public class TransientStoreException extends CounterStoreException {

    private static final long serialVersionUID = 1L;

    public TransientStoreException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean mayHaveBeenApplied() {
        return false;
    }
}
