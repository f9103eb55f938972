package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.StrategyStatistics;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * DOWN while a buffered strategy's flusher cannot write to the store (increments pile up in memory and a crash
 * would lose them); OUT_OF_SERVICE while a buffer is at its bound (new counters are refused or wait); UP otherwise.
 * DOWN as well while the shared cache of monotonic counters keeps failing (its circuit breaker is open). The details
 * show each buffer's state and each shared cache's breaker.
 */
final class CountersHealthIndicator extends AbstractHealthIndicator {

    private final CounterService counters;
    private final @Nullable CircuitBreakerRegistry circuitBreakers;

    /** {@code circuitBreakers}: the strategies' registry, where the breakers of shared caches are found. */
    CountersHealthIndicator(CounterService counters, @Nullable CircuitBreakerRegistry circuitBreakers) {
        super("Counters health check failed");
        this.counters = counters;
        this.circuitBreakers = circuitBreakers;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        Status status = Status.UP;
        Map<String, Object> strategies = new LinkedHashMap<>();
        for (StrategyStatistics statistics : counters.statistics()) {
            StrategyStatistics.BufferActivity buffer = statistics.activity().buffer();
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("strategy", statistics.strategy());
            if (buffer != null) {
                details.put("pendingCounters", buffer.pendingCounters());
                details.put("maxPendingCounters", buffer.maxPendingCounters());
                details.put("flushLag", buffer.flushLag().toString());
                if (buffer.failing()) {
                    details.put("lastFailure", buffer.lastFailure());
                    status = Status.DOWN;
                } else if (buffer.full() && !Status.DOWN.equals(status)) {
                    status = Status.OUT_OF_SERVICE;
                }
            }
            strategies.put(statistics.rule(), details);
        }
        builder.withDetail("strategies", strategies);
        // A shared cache (Redis) that keeps failing: monotonic counters cannot hand out values; sharded counters read
        // their totals from the database meanwhile.
        Map<String, Object> caches = new LinkedHashMap<>();
        if (circuitBreakers != null) {
            for (CircuitBreaker breaker : circuitBreakers.getAllCircuitBreakers()) {
                if (breaker.getName().startsWith("counters-")
                        && breaker.getName().contains("-cache")) {
                    CircuitBreaker.State state = breaker.getState();
                    caches.put(breaker.getName(), state.name());
                    if (state == CircuitBreaker.State.OPEN && breaker.getName().startsWith("counters-monotonic")) {
                        status = Status.DOWN;
                    }
                }
            }
        }
        if (!caches.isEmpty()) {
            builder.withDetail("sharedCaches", caches);
        }
        builder.status(status);
    }
}
