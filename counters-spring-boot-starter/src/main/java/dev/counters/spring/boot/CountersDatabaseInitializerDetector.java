package dev.counters.spring.boot;

import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDatabaseInitializerDetector;
import org.springframework.core.Ordered;

/**
 * Tells Spring Boot that a {@link CountersSchemaInitializer} initializes a database, so that the beans that depend on
 * database initialization wait for it. Ordered after Flyway and Liquibase (order 0 and 1) and before the SQL scripts
 * of {@code spring.sql.init} ({@code Ordered.LOWEST_PRECEDENCE - 100}), so that the scripts may write to the
 * library's tables.
 */
final class CountersDatabaseInitializerDetector extends AbstractBeansOfTypeDatabaseInitializerDetector {

    @Override
    protected Set<Class<?>> getDatabaseInitializerBeanTypes() {
        return Set.of(CountersSchemaInitializer.class);
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE - 200;
    }
}
