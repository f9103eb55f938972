package dev.counters.spring.boot;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.core.RegistryStore;
import io.github.resilience4j.core.registry.InMemoryRegistryStore;
import io.github.resilience4j.micrometer.tagged.TaggedCircuitBreakerMetrics;
import io.github.resilience4j.micrometer.tagged.TaggedRetryMetrics;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Resilience4j's meters of the {@code counters-*} instances only, those there are and those added later. Each is bound
 * through a registry of its own, since Resilience4j binds whole registries and the application's may hold others.
 */
final class CountersResilienceMetrics implements MeterBinder {

    private static final String PREFIX = "counters-";

    private final CountersResilience resilience;

    CountersResilienceMetrics(CountersResilience resilience) {
        this.resilience = resilience;
    }

    @Override
    public void bindTo(MeterRegistry meters) {
        RetryRegistry retries = resilience.retries();
        retries.getEventPublisher().onEntryAdded(added -> bind(added.getAddedEntry(), meters));
        retries.getAllRetries().forEach(retry -> bind(retry, meters));
        CircuitBreakerRegistry circuitBreakers = resilience.circuitBreakers();
        circuitBreakers.getEventPublisher().onEntryAdded(added -> bind(added.getAddedEntry(), meters));
        circuitBreakers.getAllCircuitBreakers().forEach(circuitBreaker -> bind(circuitBreaker, meters));
    }

    private static void bind(Retry retry, MeterRegistry meters) {
        if (retry.getName().startsWith(PREFIX)) {
            TaggedRetryMetrics.ofRetryRegistry(RetryRegistry.custom()
                            .withRegistryStore(only(retry.getName(), retry))
                            .build())
                    .bindTo(meters);
        }
    }

    private static void bind(CircuitBreaker circuitBreaker, MeterRegistry meters) {
        if (circuitBreaker.getName().startsWith(PREFIX)) {
            TaggedCircuitBreakerMetrics.ofCircuitBreakerRegistry(CircuitBreakerRegistry.custom()
                            .withRegistryStore(only(circuitBreaker.getName(), circuitBreaker))
                            .build())
                    .bindTo(meters);
        }
    }

    private static <E> RegistryStore<E> only(String name, E entry) {
        InMemoryRegistryStore<E> store = new InMemoryRegistryStore<>();
        store.putIfAbsent(name, entry);
        return store;
    }
}
