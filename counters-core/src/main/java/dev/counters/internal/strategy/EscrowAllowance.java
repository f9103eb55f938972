package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.strategy.BoundedSettings;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What this node knows of one bounded counter's allowance (its {@code b:n:} row): on each side (toward the minimum,
 * toward the maximum) the room it may still take without asking the pool, the rate it uses it at, and whether it
 * takes allowances at all ({@link Mode}). The local room is an underestimate of the row's: a unit is taken here by
 * compare-and-set before its write, and a write the row refuses (its room was collected) sets it to 0.
 *
 * <p>Every use of the row (a take and its write, a refill) runs between {@link #enter()} and {@link #exit()}, so that
 * giving the row back ({@link #seal}) can wait for the writes in flight: a sealed allowance sends its callers to the
 * pool.
 */
final class EscrowAllowance {

    /** How a side changes the counter. */
    enum Mode {
        /** Through the pool row: the node's rate is below {@code escrow-above}, or the allowance was given back idle. */
        COLD,
        /** Through the node's own row, refilled from the pool. */
        ESCROW,
        /** Through the pool row, near the bound: every unit is exact there. Left with hysteresis. */
        POOL
    }

    /** The EWMA's time constant: one second. */
    private static final double TAU_NANOS = 1e9;

    final CounterName name;
    final Side down = new Side();
    final Side up = new Side();
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean sealed;
    /** Whether the node row may exist: set by a refill or a seed, cleared by a retire. */
    volatile boolean hasRow;

    volatile long lastUseNanos;
    /** Set for a rate limiter's ended window: the keeper gives the row back and drops the allowance. */
    volatile boolean forgotten;

    EscrowAllowance(CounterName name, long nowNanos) {
        this.name = name;
        this.lastUseNanos = nowNanos;
    }

    /** The side a delta moves toward: toward the minimum for a negative one. */
    Side side(long delta) {
        return delta < 0 ? down : up;
    }

    Side other(Side side) {
        return side == down ? up : down;
    }

    /** Starts a use of the node row; false once sealed (the caller goes to the pool). */
    boolean enter() {
        inFlight.incrementAndGet();
        if (sealed) {
            inFlight.decrementAndGet();
            return false;
        }
        return true;
    }

    void exit() {
        inFlight.decrementAndGet();
    }

    /**
     * Seals the allowance and waits for the uses in flight, at most until {@code deadlineNanos} (on {@code nanos}).
     *
     * @return whether every use ended; if not, it is unsealed again
     */
    boolean seal(long deadlineNanos, java.util.function.LongSupplier nanos) {
        sealed = true;
        while (inFlight.get() > 0) {
            if (nanos.getAsLong() - deadlineNanos >= 0) {
                sealed = false;
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    void unseal() {
        sealed = false;
    }

    /** The units held locally on both sides. */
    long localUnits() {
        return down.local.get() + up.local.get();
    }

    /** One side of the allowance. */
    static final class Side {

        final AtomicLong local = new AtomicLong();
        final ReentrantLock refill = new ReentrantLock();
        volatile Mode mode = Mode.COLD;
        /** The pool's room on this side after the last refill: it sizes the next one. */
        volatile long poolAfter = Long.MAX_VALUE;
        /** When pool mode last tried to leave (elapsed nanos). */
        volatile long lastPoolTry;

        private double rate;
        private long rateAt;
        private boolean rated;

        /** Takes {@code units} of the local room if it has them. */
        boolean tryTake(long units) {
            for (long held = local.get(); held >= units; held = local.get()) {
                if (local.compareAndSet(held, held - units)) {
                    return true;
                }
            }
            return false;
        }

        /** Takes up to {@code units} of the local room; what it took. */
        long takeUpTo(long units) {
            for (long held = local.get(); held > 0; held = local.get()) {
                long taken = Math.min(held, units);
                if (local.compareAndSet(held, held - taken)) {
                    return taken;
                }
            }
            return 0;
        }

        /** The rate (units per second) decayed to {@code nowNanos}. */
        synchronized double rateAt(long nowNanos) {
            return rated ? rate * Math.exp(-Math.max(0, nowNanos - rateAt) / TAU_NANOS) : 0;
        }

        /** Starts the rate at {@code rate}: a new window of a key that was busy in the one before. */
        synchronized void warm(double rate, long nowNanos) {
            if (rate > 0 && !rated) {
                this.rate = rate;
                this.rateAt = nowNanos;
                this.rated = true;
            }
        }

        /** Records a use of {@code units}; the rate (units per second, an EWMA) with it. */
        synchronized double observe(long units, long nowNanos) {
            if (rated) {
                rate *= Math.exp(-Math.max(0, nowNanos - rateAt) / TAU_NANOS);
            }
            rated = true;
            rateAt = nowNanos;
            rate += units * (1e9 / TAU_NANOS);
            return rate;
        }

        /**
         * The units a refill asks for: enough for about {@code refill-horizon} at the node's rate, within the settings'
         * limits, and no more than an eighth of what the pool had left: refills shrink as the pool drains.
         */
        synchronized long target(BoundedSettings settings) {
            double horizonSeconds = settings.refillHorizon().toNanos() / 1e9;
            long want = (long) Math.min(Math.ceil(rate * horizonSeconds), settings.maxRefill());
            want = Math.max(settings.minRefill(), want);
            return Math.max(settings.minRefill(), Math.min(want, poolAfter / 8));
        }
    }
}
