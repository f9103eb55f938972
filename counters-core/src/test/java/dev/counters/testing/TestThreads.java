package dev.counters.testing;

/** The tests' threads, on Java 17 (no {@code Thread.ofPlatform()}): started, or daemon with a name. */
public final class TestThreads {

    private TestThreads() {}

    /** A platform thread running {@code task}, started. */
    public static Thread start(Runnable task) {
        Thread thread = new Thread(task);
        thread.start();
        return thread;
    }

    /** A daemon thread named {@code name} running {@code task}, not started. */
    public static Thread daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        return thread;
    }
}
