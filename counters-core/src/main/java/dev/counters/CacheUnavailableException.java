package dev.counters;

import org.jspecify.annotations.Nullable;

/**
 * A shared cache (of monotonic values or of cached totals) could not be reached, or did not answer within its
 * timeout. Nothing was written to the store and no value was handed out; a monotonic counter's cached value may have
 * moved past values that nobody received, which leaves a gap, never a repeat. Repeating the operation is safe.
 */
public class CacheUnavailableException extends CountersException {

    private static final long serialVersionUID = 1L;

    public CacheUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean mayHaveBeenApplied() {
        return false;
    }
}
