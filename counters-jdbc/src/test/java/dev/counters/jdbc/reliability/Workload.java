package dev.counters.jdbc.reliability;

import dev.counters.CounterService;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import dev.counters.sequence.SequenceService;
import dev.counters.testing.TestThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

/**
 * Client threads that keep operating until stopped, recording every operation: writers add unique deltas to random
 * counters of a set, a reader reads them, drawers take numbers from a sequence. It also keeps the longest time any
 * single call took, to check that no caller was blocked past its timeouts.
 */
final class Workload implements AutoCloseable {

    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;
    private volatile long pauseNanos;
    final AtomicLong operations = new AtomicLong();
    /** The longest any single increment or sequence draw took (reads may wait longer: they need the database). */
    final AtomicLong longestCallNanos = new AtomicLong();

    /**
     * Makes each client thread pause this long between operations: increments that only touch memory would otherwise
     * fill the history with millions of operations.
     */
    Workload pauseBetweenOperations(Duration pause) { // may change while it runs
        this.pauseNanos = pause.toNanos();
        return this;
    }

    /** What a writer does: one increment. */
    @FunctionalInterface
    interface Incrementer {
        void increment(String counter, long delta);
    }

    /**
     * {@code writers} threads incrementing {@code counters} through {@code service}, and one reader; the service is
     * the session (application node) of their operations.
     */
    Workload increments(
            CounterService service, History history, List<String> counters, UniqueDeltas deltas, int writers) {
        return increments(service, service::increment, history, counters, deltas, writers);
    }

    /** As {@link #increments(CounterService, History, List, UniqueDeltas, int)}, each write made by {@code incrementer}. */
    Workload increments(
            CounterService service,
            Incrementer incrementer,
            History history,
            List<String> counters,
            UniqueDeltas deltas,
            int writers) {
        String session = "node@" + System.identityHashCode(service);
        increments(session, incrementer, history, counters, deltas, writers);
        start(false, () -> {
            String counter = counters.get(ThreadLocalRandom.current().nextInt(counters.size()));
            history.read(session, counter, () -> service.get(counter));
        });
        return this;
    }

    /** {@code writers} threads incrementing {@code counters} with {@code incrementer}. */
    Workload increments(
            String session,
            Incrementer incrementer,
            History history,
            List<String> counters,
            UniqueDeltas deltas,
            int writers) {
        for (int t = 0; t < writers; t++) {
            start(true, () -> {
                String counter = counters.get(ThreadLocalRandom.current().nextInt(counters.size()));
                long delta = deltas.next();
                history.add(session, counter, delta, () -> incrementer.increment(counter, delta));
            });
        }
        return this;
    }

    /** {@code threads} client threads each repeating {@code operation}, which records its own history. */
    Workload repeating(int threads, Runnable operation) {
        for (int t = 0; t < threads; t++) {
            start(true, operation);
        }
        return this;
    }

    /** {@code drawers} threads taking numbers from {@code sequence}; what each was handed goes to {@code numbers}. */
    Workload numbers(SequenceService sequences, String sequence, int drawers, Map<String, List<Long>> numbers) {
        for (int t = 0; t < drawers; t++) {
            List<Long> mine = new ArrayList<>();
            numbers.put(sequence + "#" + numbers.size() + "@" + System.identityHashCode(mine), mine);
            start(true, () -> {
                try {
                    long number = sequences.next(sequence);
                    synchronized (mine) {
                        mine.add(number);
                    }
                } catch (RuntimeException e) {
                    // not handed out; at most a gap
                }
            });
        }
        return this;
    }

    private void start(boolean timed, Runnable operation) {
        Thread thread = TestThreads.daemon("workload-" + threads.size(), () -> {
            while (!stopped) {
                long started = System.nanoTime();
                operation.run();
                if (timed) {
                    longestCallNanos.accumulateAndGet(System.nanoTime() - started, Math::max);
                }
                operations.incrementAndGet();
                if (pauseNanos > 0) {
                    LockSupport.parkNanos(pauseNanos);
                }
            }
        });
        threads.add(thread);
        thread.start();
    }

    /** Waits until {@code done}, at most {@code maxSeconds}. */
    Workload until(BooleanSupplier done, long maxSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(maxSeconds);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return this;
    }

    /**
     * Stops every client thread and waits for its last operation to complete. Not InterruptedException: an
     * AutoCloseable whose close throws it makes javac warn at every try-with-resources.
     */
    @Override
    public void close() {
        stopped = true;
        for (Thread thread : threads) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(60));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("Interrupted while waiting for the client threads to stop", e);
            }
            if (thread.isAlive()) {
                throw new AssertionError("A client thread is still blocked 60 s after the workload stopped");
            }
        }
    }

    static List<String> names(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + i).toList();
    }

    static Map<String, List<Long>> newNumbers() {
        return new ConcurrentHashMap<>();
    }
}
