package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.StrategyStatistics;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * DOWN while a buffered strategy's flusher cannot write to the store (increments pile up in memory and a crash
 * would lose them); OUT_OF_SERVICE while a buffer is at its bound (new counters are refused or wait); UP otherwise.
 * The details show each buffer's state.
 */
final class CountersHealthIndicator extends AbstractHealthIndicator {

    private final CounterService counters;

    CountersHealthIndicator(CounterService counters) {
        super("Counters health check failed");
        this.counters = counters;
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
                } else if (buffer.full() && status != Status.DOWN) {
                    status = Status.OUT_OF_SERVICE;
                }
            }
            strategies.put(statistics.rule(), details);
        }
        builder.status(status).withDetail("strategies", strategies);
    }
}
