package dev.counters;

/**
 * A buffered increment was refused because the buffer holds as many counters as it may (the store is probably
 * unreachable, so nothing can be written out). Nothing was counted; the increment can be repeated.
 */
public class BufferFullException extends CountersException {

    private static final long serialVersionUID = 1L;

    public BufferFullException(String message) {
        super(message, null);
    }
}
