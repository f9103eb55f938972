package dev.counters.internal;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The library's own background threads, on Java 17: platform daemon threads, named for thread dumps. */
public final class Threads {

    private Threads() {}

    /** Daemon threads named {@code prefix} and a number counted from 1: none keeps the JVM from exiting. */
    public static ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }

    /**
     * What {@code ExecutorService.close()} does on Java 19+: no new tasks, then waits for the running ones to end. An
     * interrupt stops the wait, cancels the tasks and is kept.
     */
    public static void shutdownAndWait(ExecutorService executor) {
        executor.shutdown();
        try {
            while (!executor.awaitTermination(1, TimeUnit.DAYS)) {
                // waits on, as close() does
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
