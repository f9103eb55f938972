package dev.counters.spring.boot;

import dev.counters.jdbc.JooqCounterStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Creates and upgrades the library's tables with its Flyway migrations when the application starts, as
 * {@code counters.jdbc.initialize-schema} says. A database initializer to Spring Boot (see
 * {@code CountersDatabaseInitializerDetector}): it runs after the application's own Flyway or Liquibase migrations
 * and before its SQL scripts ({@code spring.sql.init}), and every {@code CounterStore}, {@code CounterService} and
 * {@code SequenceService} bean, the application's own too, is created after it.
 */
public class CountersSchemaInitializer implements InitializingBean {

    private final DataSource dataSource;
    private final JooqCounterStore.Builder store;
    private final DatabaseInitializationMode mode;

    /**
     * An initializer of the tables of the stores {@code store} builds (its table prefix, its dialect), in
     * {@code dataSource}: on every database ({@code ALWAYS}), on an embedded one only ({@code EMBEDDED}), or never
     * ({@code NEVER}).
     */
    public CountersSchemaInitializer(
            DataSource dataSource, JooqCounterStore.Builder store, DatabaseInitializationMode mode) {
        this.dataSource = dataSource;
        this.store = store;
        this.mode = mode;
    }

    @Override
    public void afterPropertiesSet() {
        if (initializes()) {
            store.migrate();
        }
    }

    /** Whether this initializer applies the migrations to its database. */
    public boolean initializes() {
        return switch (mode) {
            case ALWAYS -> true;
            case NEVER -> false;
            case EMBEDDED -> EmbeddedDatabaseConnection.isEmbedded(dataSource);
        };
    }
}
