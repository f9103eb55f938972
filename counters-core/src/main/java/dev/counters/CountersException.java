package dev.counters;

import org.jspecify.annotations.Nullable;

/**
 * The base of every exception this library throws, apart from {@link IllegalArgumentException} for bad input and
 * {@link IllegalStateException} for a closed service. What matters to a caller is whether the write it attempted
 * was applied:
 *
 * <ul>
 *   <li><b>Not applied</b>, so repeating it is safe: {@link TransientStoreException} (and its subtype
 *       {@link StoreUnavailableException}), {@link CounterOverflowException}, {@link CounterContentionException},
 *       {@link BufferFullException}, {@link SequenceExhaustedException}, {@link NodeIdInUseException},
 *       {@link CacheUnavailableException}.
 *   <li><b>Unknown</b>: a {@link CounterStoreException} that is not a {@link TransientStoreException}. The store
 *       failed while the write may have been committed (the connection broke during the commit, for example). The
 *       library never repeats such a write blindly; {@code delta-log} and {@code buffered} repeat it under the same
 *       id, which makes it safe.
 * </ul>
 *
 * {@link #mayHaveBeenApplied()} says which of the two an exception is.
 */
public abstract class CountersException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A null {@code cause} leaves it to be set later ({@link #initCause}), as translators of store errors do. */
    @SuppressWarnings("this-escape") // initCause is final in Throwable: no subclass can observe this half-built
    protected CountersException(String message, @Nullable Throwable cause) {
        super(message);
        if (cause != null) {
            initCause(cause);
        }
    }

    /** False when the write surely was not applied; empty-handed callers may repeat it. Unknown otherwise. */
    public boolean mayHaveBeenApplied() {
        return false;
    }
}
