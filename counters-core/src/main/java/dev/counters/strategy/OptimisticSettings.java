package dev.counters.strategy;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the {@code optimistic} strategy: read value and version, compare-and-set, retry conflicts with backoff;
 * the concurrent increments of a counter in one JVM share each attempt. Exact and durable when {@code increment}
 * returns.
 *
 * @param maxAttempts how many read-and-compare-and-set attempts an increment gets before
 *     {@link dev.counters.CounterContentionException}; at least 1
 * @param initialBackoff the wait after the first conflict; later waits double, with ±50 % jitter
 * @param maxBackoff the longest wait between two attempts
 */
public record OptimisticSettings(int maxAttempts, Duration initialBackoff, Duration maxBackoff)
        implements StrategySettings {

    public OptimisticSettings {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("optimistic max-attempts must be >= 1, was " + maxAttempts);
        }
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException("optimistic initial-backoff must be positive, was " + initialBackoff);
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("optimistic max-backoff (" + maxBackoff
                    + ") must not be shorter than initial-backoff (" + initialBackoff + ")");
        }
    }

    /** 10 attempts, backoff from 2 ms to 200 ms. */
    public static OptimisticSettings defaults() {
        return new OptimisticSettings(10, Duration.ofMillis(2), Duration.ofMillis(200));
    }

    public OptimisticSettings withMaxAttempts(int maxAttempts) {
        return new OptimisticSettings(maxAttempts, initialBackoff, maxBackoff);
    }

    @Override
    public String name() {
        return "optimistic";
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.optimistic(this);
    }
}
