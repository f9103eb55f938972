package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.internal.Time;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets callers in until {@link #close()}, and tells the closer when every caller that got in has left: after that, no
 * caller admits a slot, queues a call or a key, so a last drain misses none and none is accepted after it. (Adds to a
 * slot already held do not pass it: the drain seals the slots, see {@link SealableAdder}.)
 *
 * <p>Two counters that only grow, striped so that callers do not contend: one counted on the way in, one on the way
 * out. The closer reads the second first; when the sums are equal nobody was inside at that moment, and anyone who
 * came in later saw the gate closed, since the closer closed it before reading.
 */
final class CloseGate {

    private final LongAdder entered = new LongAdder();
    private final LongAdder left = new LongAdder();
    private volatile boolean closed;

    /** Whether the caller may go on; if so it must {@link #leave()} once done, whatever happens. */
    boolean enter() {
        entered.increment();
        if (closed) {
            left.increment();
            return false;
        }
        return true;
    }

    /** Passes the gate for an increment of {@code name}, or refuses it once closing began: it could miss the drain. */
    void enter(CounterName name) {
        if (!enter()) {
            throw refused(name);
        }
    }

    /** The refusal of an increment of {@code name} once closing began. */
    static IllegalStateException refused(CounterName name) {
        return new IllegalStateException("The buffered strategy is closed; counter '" + name + "' was not incremented");
    }

    void leave() {
        left.increment();
    }

    boolean isClosed() {
        return closed;
    }

    /** Closes the gate; true for the first call only. */
    synchronized boolean close() {
        boolean first = !closed;
        closed = true;
        return first;
    }

    /** Waits (after {@link #close()}) until every caller that got in has left, or the deadline; whether they have. */
    boolean awaitLeft(Time time, long deadlineNanos) {
        while (true) {
            long out = left.sum(); // first: see the class comment
            if (out == entered.sum()) {
                return true;
            }
            if (time.nanoTime() - deadlineNanos >= 0) {
                return false;
            }
            LockSupport.parkNanos(100_000);
        }
    }
}
