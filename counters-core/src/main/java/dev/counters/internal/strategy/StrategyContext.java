package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.StoreUnavailableException;
import dev.counters.StrategyStatistics;
import dev.counters.TransientStoreException;
import dev.counters.internal.Observations;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.observation.CountersObservationContext;
import dev.counters.spi.CounterStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * What a strategy is built from: the store, the one source of time and the randomness for spreading load it must
 * use (injected so that tests are deterministic), the source of the ids it writes (unique to the service instance
 * that owns it, never drawn from {@code random}), the factory of its background threads, and the Resilience4j
 * registries its one retry or circuit breaker comes from, and the Micrometer registry its observations go to.
 *
 * @param rule the configuration rule the strategy serves ({@link StrategyStatistics#DEFAULT_RULE} or a name or
 *     pattern): it names the strategy's Resilience4j instances
 * @param strategy the strategy's name ({@link dev.counters.strategy.StrategySettings#name()}): it names them too, and
 *     tags its observations
 */
public record StrategyContext(
        CounterStore store,
        Time time,
        RandomGenerator random,
        UniqueIds ids,
        ThreadFactory threadFactory,
        RetryRegistry retries,
        CircuitBreakerRegistry circuitBreakers,
        Observations observations,
        String rule,
        String strategy) {

    public StrategyContext {
        Objects.requireNonNull(store, "store");
        Objects.requireNonNull(time, "time");
        Objects.requireNonNull(random, "random");
        Objects.requireNonNull(ids, "ids");
        Objects.requireNonNull(threadFactory, "threadFactory");
        Objects.requireNonNull(retries, "retries");
        Objects.requireNonNull(circuitBreakers, "circuitBreakers");
        Objects.requireNonNull(observations, "observations");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(strategy, "strategy");
    }

    /** The id of the service instance: the owner of its leases. */
    public String instanceId() {
        return ids.instanceId();
    }

    /** A background thread from the factory, named for what it does, not yet started. */
    public Thread newThread(String purpose, Runnable task) {
        Thread thread = threadFactory.newThread(task);
        thread.setName("counters-" + purpose + "-" + instanceId().substring(0, 8));
        return thread;
    }

    /**
     * The store's {@code capability}, which the strategy cannot work without.
     *
     * @throws IllegalStateException naming the strategy, the capability and the store, when the store lacks it
     */
    public <T> T require(Class<T> capability) {
        return store.capability(capability)
                .orElseThrow(() -> new IllegalStateException("The " + strategy
                        + " strategy needs a store that offers " + capability.getName() + ", and "
                        + store.getClass().getName() + " does not; use a store that does (the JDBC and in-memory stores"
                        + " offer every capability)"));
    }

    /**
     * The strategy's retry, from the registry: the instance named {@code counters-<strategy>} (with
     * {@code [<rule>]} for a rule other than the default) if the application registered one, else a new one with
     * {@code defaults}.
     */
    public Retry retry(RetryConfig defaults) {
        return retry("", defaults);
    }

    /** A second retry of the strategy, for one purpose: {@code counters-<strategy>-<purpose>}, found like the first. */
    public Retry retry(String purpose, RetryConfig defaults) {
        return retries.retry(instanceName(purpose), () -> defaults);
    }

    /**
     * Runs one of the strategy's store operations ({@link Observations#FLUSH}, ...) as an observation, tagged with
     * the rule and the strategy.
     */
    public <T> T observe(CountersObservationContext.Operation operation, @Nullable CounterName name, Supplier<T> work) {
        return observations.observe(
                () -> CountersObservationContext.counter(operation, rule, strategy, name == null ? null : name.value()),
                work);
    }

    /**
     * The strategy's circuit breaker for one purpose ({@code ""} for its main one), from the registry, named and found
     * like {@link #retry(String, RetryConfig)}.
     */
    public CircuitBreaker circuitBreaker(String purpose, CircuitBreakerConfig defaults) {
        return circuitBreakers.circuitBreaker(instanceName(purpose), () -> defaults);
    }

    /**
     * A circuit breaker's defaults for an outage: open after {@code failuresInARow} failures in a row, then one trial
     * call after 500 ms, the wait doubling up to 10 s while the trials fail. Callers say which failures count.
     */
    public static CircuitBreakerConfig.Builder breakerForOutages(int failuresInARow) {
        return CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
                .slidingWindowSize(failuresInARow)
                .minimumNumberOfCalls(failuresInARow)
                .failureRateThreshold(100)
                .waitIntervalFunctionInOpenState(
                        IntervalFunction.ofExponentialBackoff(Duration.ofMillis(500), 2.0, Duration.ofSeconds(10)))
                .permittedNumberOfCallsInHalfOpenState(1);
    }

    private String instanceName(String purpose) {
        return "counters-" + strategy + (purpose.isEmpty() ? "" : "-" + purpose)
                + (rule.equals(StrategyStatistics.DEFAULT_RULE) ? "" : "[" + rule + "]");
    }

    /**
     * Retries of a write the store reports as surely not applied ({@link TransientStoreException}: a deadlock
     * victim, a lost race to insert a row): up to 10 attempts, exponential backoff with jitter from 5 ms to 500 ms.
     * Nothing else is retried, since a write whose outcome is unknown may have been applied; nor is an unreachable
     * store, which already cost the pool's connection timeout.
     */
    public static RetryConfig transientFailures() {
        return transientFailures(10).build();
    }

    /** {@link #transientFailures()} with another number of attempts, to build on. */
    public static <T> RetryConfig.Builder<T> transientFailures(int maxAttempts) {
        return RetryConfig.<T>custom()
                .maxAttempts(maxAttempts)
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(
                        Duration.ofMillis(5), 2.0, 0.5, Duration.ofMillis(500)))
                .retryExceptions(TransientStoreException.class)
                .ignoreExceptions(StoreUnavailableException.class);
    }
}
