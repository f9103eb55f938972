package dev.counters.jdbc;

import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.jooq.SQLDialect;

/**
 * Applies the library's own migrations with Flyway: from a library-owned location, recorded in a history table of
 * their own ({@code <prefix>counters_schema_history}), so they never mix with the application's migrations.
 * Flyway's lock makes concurrent runs from several processes safe.
 */
final class SchemaMigrations {

    static final String LOCATION = "classpath:dev/counters/jdbc/migration/";

    private SchemaMigrations() {
    }

    static MigrateResult migrate(DataSource dataSource, SQLDialect dialect, String prefix) {
        return Flyway.configure(SchemaMigrations.class.getClassLoader())
                .dataSource(dataSource)
                .locations(LOCATION + Databases.migrationFolder(dialect))
                .table(historyTable(prefix))
                .placeholders(Map.of("prefix", prefix))
                // The application's schema may hold tables already: record a baseline below our first version.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .cleanDisabled(true)
                .load()
                .migrate();
    }

    static String historyTable(String prefix) {
        return prefix + "counters_schema_history";
    }
}
