package dev.counters.spring.boot;

import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.github.resilience4j.retry.RetryRegistry;

/**
 * The Resilience4j registries the counters' strategies and sequences take their retries and circuit breakers from:
 * the application's, when it defines them as beans, otherwise registries of the library's own. Their instances are
 * named {@code counters-<strategy>} ({@code counters-<strategy>[<rule>]}) and {@code counters-sequences}.
 */
record CountersResilience(RetryRegistry retries, CircuitBreakerRegistry circuitBreakers) {}
