package dev.counters;

import org.jspecify.annotations.Nullable;

/**
 * A store could not do what was asked. Unless it is a {@link TransientStoreException}, the outcome of a write
 * that ended this way is unknown (for example the connection was lost while the commit was in flight), and
 * the library never retries such a write blindly.
 */
public class CounterStoreException extends CountersException {

    private static final long serialVersionUID = 1L;

    public CounterStoreException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** True: the outcome is unknown, unless this is a {@link TransientStoreException}. */
    @Override
    public boolean mayHaveBeenApplied() {
        return true;
    }
}
