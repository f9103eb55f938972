package dev.counters.jdbc;

import dev.counters.StoreUnavailableException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.SelectField;
import org.jooq.Table;
import org.jooq.exception.DataAccessException;
import org.jooq.impl.DSL;

/**
 * Applies the library's own migrations with Flyway: from a library-owned location, recorded in a history table of
 * their own ({@code <prefix>counters_schema_history}), so they never mix with the application's migrations.
 * Flyway's lock makes concurrent runs from several processes safe; on a Galera cluster, where that lock holds on one
 * node only, a {@link GaleraMigrationLock} does.
 */
final class SchemaMigrations {

    static final String LOCATION = "classpath:dev/counters/jdbc/migration/";

    private SchemaMigrations() {}

    static MigrateResult migrate(DataSource dataSource, SQLDialect dialect, String prefix) {
        return migrate(dataSource, dialect, prefix, GaleraMigrationLock.WAIT);
    }

    /** As {@link #migrate(DataSource, SQLDialect, String)}, waiting at most {@code wait} for another's migrations. */
    @SuppressWarnings("try") // the lock is held for the migration, not used in it
    static MigrateResult migrate(DataSource dataSource, SQLDialect dialect, String prefix, Duration wait) {
        if (!Databases.migrationFolder(dialect).equals("mysql")) {
            return stampedHistories(flyway(dataSource, dialect, prefix).migrate(), dataSource, dialect, prefix);
        }
        try (GaleraMigrationLock lock = GaleraMigrationLock.acquireOnGalera(dataSource, prefix, wait)) {
            return stampedHistories(flyway(dataSource, dialect, prefix).migrate(), dataSource, dialect, prefix);
        } catch (SQLException e) {
            throw new StoreUnavailableException("Could not take or release the lock on the counters' migrations", e);
        }
    }

    /**
     * Once the migration that adds the history columns ran, stamps the rows written before it with the live history
     * (see {@link FailoverProtection}): a failover soon after the upgrade then makes them skip as any other row.
     */
    private static MigrateResult stampedHistories(
            MigrateResult result, DataSource dataSource, SQLDialect dialect, String prefix) {
        if (result.migrations.stream().anyMatch(migration -> HISTORY_VERSION.equals(migration.version))) {
            CounterTables tables = new CounterTables(prefix);
            Field<String> live = new FailoverProtection(dialect, 0).live;
            DSL.using(dataSource, dialect).transaction(tx -> {
                tx.dsl()
                        .update(tables.sequences)
                        .set(tables.sequencesHistory, live)
                        .execute();
                tx.dsl()
                        .update(tables.maxShards)
                        .set(tables.maxShardsHistory, live)
                        .execute();
            });
        }
        return result;
    }

    /** The migration that adds the history columns. */
    private static final String HISTORY_VERSION = "9";

    private static Flyway flyway(DataSource dataSource, SQLDialect dialect, String prefix) {
        return Flyway.configure(SchemaMigrations.class.getClassLoader())
                .dataSource(dataSource)
                .locations(location(dialect))
                .table(historyTable(prefix))
                .placeholders(Map.of("prefix", prefix))
                // The application's schema may hold tables already: record a baseline below our first version.
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .cleanDisabled(true)
                .load();
    }

    /** Where the migrations for {@code dialect} are. */
    static String location(SQLDialect dialect) {
        return LOCATION + Databases.migrationFolder(dialect) + "/";
    }

    /**
     * SQL states of an unknown table or column: MySQL, MariaDB and H2 (42S02, 42S22; H2 also 42S03 and 42S04, with
     * candidates or in an empty database); PostgreSQL (42P01, 42703).
     */
    private static final Set<String> UNDEFINED = Set.of("42S02", "42S03", "42S04", "42S22", "42P01", "42703");

    /** What of the library's schema the database lacks: tables, or columns of the tables it has. */
    static List<String> missing(DSLContext ctx, CounterTables tables) {
        List<String> missing = new ArrayList<>();
        for (CounterTables.TableColumns table : tables.all()) {
            if (!absent(ctx, table.table(), table.columns())) {
                continue;
            }
            if (absent(ctx, table.table(), List.of(DSL.inline(1)))) {
                missing.add(table.table().getName());
                continue;
            }
            for (Field<?> column : table.columns()) {
                if (absent(ctx, table.table(), List.of(column))) {
                    missing.add(table.table().getName() + "." + column.getName());
                }
            }
        }
        return missing;
    }

    private static boolean absent(DSLContext ctx, Table<?> table, List<? extends SelectField<?>> fields) {
        try {
            ctx.select(fields).from(table).where(DSL.falseCondition()).fetch();
            return false;
        } catch (DataAccessException e) {
            if (UNDEFINED.contains(e.sqlState())) {
                return true;
            }
            throw e;
        }
    }

    static String historyTable(String prefix) {
        return prefix + "counters_schema_history";
    }
}
