package dev.counters.redis;

import dev.counters.CacheUnavailableException;
import java.util.function.Supplier;

/** Runs a call to Redis and translates what the client throws. */
final class Calls {

    private Calls() {}

    /**
     * @param what the operation and its subject, to start a message ("Increment of counter 'orders'")
     * @throws ArithmeticException when Redis refused an increment past the 64-bit range (it changed nothing)
     * @throws CacheUnavailableException for any other failure: not reachable, timed out, an error reply
     */
    static <T> T call(RedisAccess redis, String what, Supplier<T> call) {
        try {
            return call.get();
        } catch (RuntimeException e) {
            String message = message(e);
            if (message.contains("increment or decrement would overflow")) {
                throw new ArithmeticException(what + " would leave the 64-bit range; nothing changed");
            }
            throw new CacheUnavailableException(what + " failed on Redis " + redis.endpoint() + ": " + message, e);
        }
    }

    static void run(RedisAccess redis, String what, Runnable call) {
        call(redis, what, () -> {
            call.run();
            return null;
        });
    }

    /** The failure's message and, when Spring wrapped the client's exception, the client's. */
    private static String message(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String top = String.valueOf(failure.getMessage());
        return root == failure || root.getMessage() == null || top.contains(root.getMessage())
                ? top
                : top + ": " + root.getMessage();
    }
}
