package dev.counters.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** Runs a task on several threads that start together, and rethrows the first failure. */
public final class Concurrently {

    @FunctionalInterface
    public interface ThreadTask {
        void run(int thread) throws Exception;
    }

    private Concurrently() {}

    public static void run(int threads, ThreadTask task) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    task.run(thread);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get(10, TimeUnit.MINUTES);
            }
        } catch (Exception e) {
            throw new AssertionError("A concurrent task failed: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }
}
