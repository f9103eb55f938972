package dev.counters.internal.strategy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.TransientStoreException;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.functions.Either;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The monotonic strategy's default retry: after a busy cold load its waits add up to the cache's load timeout (a
 * loader that died holds its claim that long), so the last attempt comes after the claim expired; other failures keep
 * the short waits of every strategy.
 */
class MonotonicRetryTest {

    @ParameterizedTest(name = "load timeout {0} ms")
    @ValueSource(longs = {200, 10_000, 60_000})
    void waitsAfterABusyLoadAddUpToTheLoadTimeout(long loadTimeoutMillis) {
        Duration loadTimeout = Duration.ofMillis(loadTimeoutMillis);
        RetryConfig defaults = MonotonicStrategy.retryDefaults(loadTimeout);
        IntervalBiFunction<Object> waits = defaults.getIntervalBiFunction();
        long busy = 0;
        long other = 0;
        for (int attempt = 1; attempt < defaults.getMaxAttempts(); attempt++) {
            busy += waits.apply(attempt, Either.left(new MonotonicStrategy.CacheBusy(CounterName.of("c"))));
            other += waits.apply(attempt, Either.left(new TransientStoreException("rolled back", null)));
        }
        assertThat(defaults.getMaxAttempts()).isEqualTo(10);
        assertThat(Duration.ofMillis(busy)).as("busy waits").isBetween(loadTimeout, loadTimeout.plusMillis(512));
        assertThat(Duration.ofMillis(other)).as("other waits").isLessThan(Duration.ofSeconds(3));
        assertThat(waits.apply(1, Either.left(new MonotonicStrategy.CacheBusy(CounterName.of("c")))))
                .as("the first wait after a busy load")
                .isLessThanOrEqualTo(Math.max(1, loadTimeoutMillis / 500));
    }
}
