package dev.counters.contract;

import dev.counters.CounterStoreException;
import dev.counters.StoreUnavailableException;
import dev.counters.TransientStoreException;
import dev.counters.spi.CounterStore;
import dev.counters.spi.RateLimits;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/** Wraps a real store; GCRA writes fail as {@link #fault} says. Counts the writes that reach it. */
public final class FaultyRateLimits extends ForwardingCounterStore {

    /** How a GCRA write fails. */
    public enum Fault {
        /** It does not. */
        NONE,
        /** No connection: nothing written. */
        DOWN,
        /** Written, then the commit's reply is lost: the outcome is unknown to the caller. */
        LOST_REPLY,
        /** The next write is a deadlock victim (nothing written), then the store works again. */
        TRANSIENT_ONCE
    }

    public volatile Fault fault = Fault.NONE;
    /** While set, a GCRA write waits for it (10 s at most) before it is made: callers queue behind it. */
    public volatile @Nullable CountDownLatch hold;

    public final AtomicInteger acquires = new AtomicInteger();

    public FaultyRateLimits(CounterStore delegate) {
        super(delegate);
    }

    @Override
    public Gcra acquire(String limiter, String key, long costNanos, long burstNanos, long nowNanos) {
        acquires.incrementAndGet();
        CountDownLatch latch = hold;
        if (latch != null) {
            try {
                latch.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        switch (fault) {
            case DOWN -> throw new StoreUnavailableException("the store is down (test)", null);
            case TRANSIENT_ONCE -> {
                fault = Fault.NONE;
                throw new TransientStoreException("a deadlock victim (test)", null);
            }
            case LOST_REPLY -> {
                super.acquire(limiter, key, costNanos, burstNanos, nowNanos);
                throw new CounterStoreException("the commit's reply was lost (test)", null);
            }
            default -> {
                return super.acquire(limiter, key, costNanos, burstNanos, nowNanos);
            }
        }
    }

    /** The wrapped store's GCRA state. */
    public RateLimits rateLimits() {
        return capability(RateLimits.class).orElseThrow();
    }
}
