package dev.counters.spring.boot;

import dev.counters.jdbc.JooqCounterStore;

/**
 * Changes the auto-configured {@link JooqCounterStore} before it is built, after {@code counters.jdbc.*} has been
 * applied: force a dialect, say. Every customizer bean is called, in
 * {@link org.springframework.core.annotation.Order @Order}, on the store's builder and on the one the
 * {@link CountersSchemaInitializer} migrates with (so that both agree on the table prefix and dialect): it should only
 * configure the builder it is given.
 */
@FunctionalInterface
public interface JooqCounterStoreBuilderCustomizer {

    void customize(JooqCounterStore.Builder builder);
}
