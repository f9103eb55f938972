package dev.counters.spring.boot;

import dev.counters.CounterService;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Writes buffered increments when the application context stops: after the web server has stopped taking requests
 * (a lower phase stops later) and well before the {@code DataSource} is closed, which happens only when beans are
 * destroyed. When the context is closing, stopping closes the service on its own thread, every buffered rule at once
 * under its shutdown timeout, and tells Spring when done: {@code spring.lifecycle.timeout-per-shutdown-phase} bounds
 * the wait, and the shutdown fits in one timeout rather than one per rule plus one for the flush. Increments after
 * that are refused. A context merely stopped (to be started again) is flushed, within the shutdown timeout.
 */
final class CountersLifecycle implements SmartLifecycle {

    /** Below the web server's graceful shutdown phase, so requests have drained before the flush. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger LOG = LoggerFactory.getLogger(CountersLifecycle.class);

    private final CounterService counters;
    private final Duration timeout;
    private final ApplicationContext context;
    private volatile boolean running;

    CountersLifecycle(CounterService counters, Duration timeout, ApplicationContext context) {
        this.counters = counters;
        this.timeout = timeout;
        this.context = context;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        try {
            counters.flush().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // Closing the service retries until its own shutdown timeout; here we only say why it is slow.
            LOG.warn("Buffered increments could not be written while stopping: {}", e.toString());
        }
    }

    @Override
    public void stop(Runnable callback) {
        if (!(context instanceof ConfigurableApplicationContext configurable && configurable.isClosed())) {
            stop();
            callback.run();
            return;
        }
        running = false;
        Thread closing = new Thread(
                () -> {
                    try {
                        counters.close();
                    } catch (RuntimeException e) {
                        LOG.error("Closing counters while the application stops failed", e);
                    } finally {
                        callback.run();
                    }
                },
                "counters-close");
        closing.setDaemon(true);
        closing.start();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
