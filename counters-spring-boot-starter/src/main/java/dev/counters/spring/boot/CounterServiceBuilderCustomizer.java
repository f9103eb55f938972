package dev.counters.spring.boot;

import dev.counters.CounterServiceBuilder;

/**
 * Changes the auto-configured {@link dev.counters.CounterService} before it is built, after {@code counters.*} has
 * been applied: add a strategy in code, or replace one that configuration cannot express. Every customizer bean is
 * called, in {@link org.springframework.core.annotation.Order @Order}.
 */
@FunctionalInterface
public interface CounterServiceBuilderCustomizer {

    void customize(CounterServiceBuilder builder);
}
