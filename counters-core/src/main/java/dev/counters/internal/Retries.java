package dev.counters.internal;

import dev.counters.CounterStoreException;
import dev.counters.CountersException;
import io.github.resilience4j.retry.Retry;
import java.util.function.Supplier;

/**
 * The one way the library repeats a write through a Resilience4j {@link Retry}: it remembers whether any attempt's
 * outcome was unknown ({@link CountersException#mayHaveBeenApplied()}), and once one was, the call's failure is
 * "unknown" too, whatever the later attempts said. A later attempt that surely wrote nothing (a deadlock victim, an
 * unreachable store) says nothing about an earlier one whose commit reply was lost. Whether an unknown outcome is
 * repeated at all is the retry's configuration; the rule holds for any configuration an application registers.
 */
public final class Retries {

    private Retries() {}

    /** Runs {@code write} through {@code retry}; its failure, if an earlier attempt's outcome was unknown, says so. */
    public static <T> T write(Retry retry, Supplier<T> write) {
        boolean[] unknown = new boolean[1]; // one call's attempts run one after another, on the caller's thread
        try {
            return retry.executeSupplier(() -> {
                try {
                    return write.get();
                } catch (RuntimeException e) {
                    unknown[0] |= mayHaveBeenApplied(e);
                    throw e;
                }
            });
        } catch (RuntimeException e) {
            if (unknown[0] && !mayHaveBeenApplied(e)) {
                throw new CounterStoreException(
                        "An earlier attempt's outcome is unknown, so this may have been"
                                + " applied (the last attempt failed: " + e.getMessage() + ")",
                        e);
            }
            throw e;
        }
    }

    /** {@link #write(Retry, Supplier)} of a write that returns nothing. */
    public static void write(Retry retry, Runnable write) {
        write(retry, () -> {
            write.run();
            return null;
        });
    }

    /** Whether a failure leaves the write's outcome unknown: the library's exceptions say; any other does not. */
    private static boolean mayHaveBeenApplied(RuntimeException e) {
        return e instanceof CountersException failure && failure.mayHaveBeenApplied();
    }
}
