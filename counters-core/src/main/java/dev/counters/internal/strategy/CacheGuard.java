package dev.counters.internal.strategy;

import dev.counters.CacheUnavailableException;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The calls to a shared cache behind a circuit breaker ({@code counters-<strategy>-cache}): once five calls in a row
 * failed with {@link CacheUnavailableException}, calls fail at once for a while (500 ms, doubling up to 10 s) instead
 * of each waiting for the client's timeout, and one call then tries again. A cache in this JVM needs no guard.
 */
final class CacheGuard {

    private static final Logger LOG = LoggerFactory.getLogger(CacheGuard.class);

    private final @Nullable CircuitBreaker breaker;

    private CacheGuard(@Nullable CircuitBreaker breaker) {
        this.breaker = breaker;
    }

    /** No guard: the cache is in this JVM. */
    static CacheGuard none() {
        return new CacheGuard(null);
    }

    static CacheGuard of(StrategyContext context) {
        String strategy = context.strategy();
        CircuitBreaker breaker = context.circuitBreaker(
                "cache",
                StrategyContext.breakerForOutages(5)
                        .recordExceptions(CacheUnavailableException.class)
                        .build());
        // Logged per change of state, not per call: an outage would otherwise log every increment.
        breaker.getEventPublisher().onStateTransition(event -> {
            switch (event.getStateTransition().getToState()) {
                case OPEN ->
                    LOG.warn(
                            "The shared cache of {} counters keeps failing: calls to it fail at once for a"
                                    + " while (circuit breaker '{}')",
                            strategy,
                            event.getCircuitBreakerName());
                case CLOSED ->
                    LOG.info(
                            "The shared cache of {} counters answers again (circuit breaker '{}')",
                            strategy,
                            event.getCircuitBreakerName());
                default -> {}
            }
        });
        return new CacheGuard(breaker);
    }

    /**
     * Runs a call to the cache.
     *
     * @throws CacheUnavailableException if the cache failed, or the breaker is open
     */
    <T> T call(Supplier<T> call) {
        if (breaker == null) {
            return call.get();
        }
        try {
            return breaker.executeSupplier(call);
        } catch (CallNotPermittedException e) {
            throw new CacheUnavailableException(
                    "The shared cache failed repeatedly: calls to it are paused (circuit" + " breaker '"
                            + breaker.getName() + "' is open); nothing was handed out or written",
                    e);
        }
    }

    void run(Runnable call) {
        call(() -> {
            call.run();
            return null;
        });
    }
}
