package dev.counters.internal.strategy;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongConsumer;

/**
 * Makes the values of one monotonic counter durable for its concurrent callers with one write: each caller waits
 * until a write of a value at least its own has committed, and one write of the largest value waiting covers all of
 * them (a maximum covers every value below it). While a write is in flight the next callers gather, and one of them
 * writes for all when it ends: a hot counter commits once per round trip, not once per value.
 *
 * <p>A caller is covered only by a write that started after it asked, so a write of its value is sure to be in it;
 * a write that failed covers no one, and the waiters then write themselves.
 */
final class MaxRaiser {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition roundEnded = lock.newCondition();
    /** The largest value asked for. */
    private long wanted = Long.MIN_VALUE;
    /** Rounds (writes) started, and the last one that committed: rounds run one at a time, in order. */
    private long started;

    private long committed;
    private boolean writing;

    /**
     * Returns once a write of at least {@code value} has committed; {@code write} writes a maximum, and is run by
     * this caller if no write in flight or to come covers it.
     *
     * @throws RuntimeException what this caller's own write threw
     */
    void raise(long value, LongConsumer write) {
        lock.lock();
        try {
            wanted = Math.max(wanted, value);
            long coveredFrom = started + 1; // the first round that starts after this caller asked
            while (committed < coveredFrom) {
                if (writing) {
                    roundEnded.awaitUninterruptibly();
                    continue;
                }
                writing = true;
                long round = ++started;
                long target = wanted;
                boolean written = false;
                lock.unlock();
                try {
                    write.accept(target);
                    written = true;
                } finally {
                    lock.lock();
                    writing = false;
                    if (written) {
                        committed = round;
                    }
                    roundEnded.signalAll();
                }
            }
        } finally {
            lock.unlock();
        }
    }
}
