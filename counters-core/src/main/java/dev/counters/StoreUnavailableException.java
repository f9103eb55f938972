package dev.counters;

import org.jspecify.annotations.Nullable;

/**
 * The store could not be reached: no connection could be had, so no statement was sent and nothing was written. The
 * operation can be repeated safely; the library does not repeat it itself, since waiting for a connection already
 * took the connection pool's timeout.
 */
public class StoreUnavailableException extends TransientStoreException {

    private static final long serialVersionUID = 1L;

    public StoreUnavailableException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
