package dev.counters.spring.boot;

import dev.counters.CounterService;
import dev.counters.sequence.SequenceService;
import dev.counters.spi.CounterStore;
import java.util.Set;
import org.springframework.boot.sql.init.dependency.AbstractBeansOfTypeDependsOnDatabaseInitializationDetector;

/**
 * Makes every {@link CounterStore}, {@link CounterService} and {@link SequenceService} bean, the application's own
 * too, wait for the database's initialization (the application's Flyway, Liquibase or SQL scripts, and the library's
 * {@link CountersSchemaInitializer}), as Spring Boot does for its {@code JdbcTemplate} and jOOQ's {@code DSLContext}:
 * a store may check its tables, and a service may read them, when it is built.
 */
final class CountersDependsOnDatabaseInitializationDetector
        extends AbstractBeansOfTypeDependsOnDatabaseInitializationDetector {

    @Override
    protected Set<Class<?>> getDependsOnDatabaseInitializationBeanTypes() {
        return Set.of(CounterStore.class, CounterService.class, SequenceService.class);
    }
}
