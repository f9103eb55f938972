package dev.counters.contract;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A store that holds the next cell {@code add} after its commit until released: the caller's increment is stored, and
 * the strategy has not yet done what follows the write (a cached total's update), while the test does something else.
 */
public final class PauseAfterAdd extends ForwardingCounterStore {

    private static final Duration LIMIT = Duration.ofSeconds(30);

    private volatile CountDownLatch committed = new CountDownLatch(1);
    private volatile CountDownLatch release = new CountDownLatch(0);

    public PauseAfterAdd(CounterStore delegate) {
        super(delegate);
    }

    /** The next add holds after its commit, until {@link #release()}. */
    public void pauseNextAdd() {
        committed = new CountDownLatch(1);
        release = new CountDownLatch(1);
    }

    /** Waits until the paused add has committed. */
    public void awaitCommitted() throws InterruptedException {
        if (!committed.await(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("no add committed within " + LIMIT);
        }
    }

    public void release() {
        release.countDown();
    }

    @Override
    public void add(CounterName counter, String cell, long delta) {
        super.add(counter, cell, delta);
        CountDownLatch held = release;
        if (held.getCount() > 0) {
            committed.countDown();
            try {
                if (!held.await(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new AssertionError("not released within " + LIMIT);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
