package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterName;
import dev.counters.jdbc.testing.TestDatabase;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class SchemaMigrationsTest {

    private static String newPrefix() {
        return "m" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void detectsTheDialectFromTheConnection(TestDatabase database) {
        SQLDialect expected = switch (database) {
            case H2 -> SQLDialect.H2;
            case MARIADB -> SQLDialect.MARIADB; // reached through MySQL Connector/J
            case POSTGRES -> SQLDialect.POSTGRES;
        };
        assertThat(JooqCounterStore.builder(database.dataSource()).build().dialect())
                .isEqualTo(expected);
        // A DSLContext configured as MySQL for a MariaDB server is corrected, since MySQL's upsert differs.
        assertThat(JooqCounterStore.builder(DSL.using(database.dataSource(), SQLDialect.MYSQL))
                        .build()
                        .dialect())
                .isEqualTo(expected);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void tableHolderMatchesTheMigratedSchema(TestDatabase database) {
        String prefix = newPrefix();
        JooqCounterStore.builder(database.dataSource())
                .tablePrefix(prefix)
                .migrateSchema(true)
                .build();
        DSLContext dsl = DSL.using(
                database.dataSource(),
                JooqCounterStore.builder(database.dataSource()).build().dialect());
        for (CounterTables.TableColumns expected : new CounterTables(prefix).all()) {
            String tableName = expected.table().getName().toLowerCase(Locale.ROOT);
            Table<?> actual = dsl.meta().getTables().stream()
                    .filter(t -> t.getName().toLowerCase(Locale.ROOT).equals(tableName))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("table " + tableName + " not found"));
            assertThat(columns(actual.fields()))
                    .isEqualTo(columns(expected.columns().toArray(Field[]::new)));
            // and a query through the holder's typed fields runs
            dsl.select(expected.columns()).from(expected.table()).limit(1).fetch();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void checkSchemaNamesWhatIsMissingAndWhereTheDdlIs(TestDatabase database) {
        String prefix = newPrefix();
        JooqCounterStore store = JooqCounterStore.builder(database.dataSource())
                .tablePrefix(prefix)
                .build();
        String location = "classpath:dev/counters/jdbc/migration/"
                + (database == TestDatabase.MARIADB ? "mysql" : "standard") + "/";
        assertThatThrownBy(store::checkSchema).isInstanceOfSatisfying(SchemaNotInitializedException.class, e -> {
            assertThat(e.missing())
                    .hasSize(new CounterTables(prefix).all().size())
                    .contains(prefix + "counter_cells", prefix + "counter_leases");
            assertThat(e.ddlLocation()).isEqualTo(location);
            assertThat(e)
                    .hasMessageContaining(prefix + "counter_leases")
                    .hasMessageContaining(location)
                    .hasMessageContaining("migrateSchema(true)");
            assertThat(e.mayHaveBeenApplied()).isFalse();
        });

        JooqCounterStore.builder(database.dataSource())
                .tablePrefix(prefix)
                .migrateSchema(true)
                .build();
        store.checkSchema();

        // An upgrade whose DDL was not applied: a table without a column the library reads.
        DSL.using(database.dataSource(), store.dialect())
                .execute("ALTER TABLE " + prefix + "counter_cells DROP COLUMN version");
        assertThatThrownBy(store::checkSchema)
                .isInstanceOfSatisfying(
                        SchemaNotInitializedException.class,
                        e -> assertThat(e.missing()).containsExactly(prefix + "counter_cells.version"));
    }

    private static Map<String, String> columns(Field<?>[] fields) {
        return java.util.Arrays.stream(fields)
                .collect(java.util.stream.Collectors.toMap(
                        f -> f.getName().toLowerCase(Locale.ROOT),
                        f -> f.getDataType().getSQLDataType().getTypeName().toLowerCase(Locale.ROOT)
                                + (f.getDataType().nullable() ? " null" : " not null")));
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void coexistsWithTheApplicationsOwnFlywayAndIsRepeatable(TestDatabase database) {
        String prefix = newPrefix();
        // The application's own migrations, with Flyway's default history table name made unique for the test.
        Flyway.configure()
                .dataSource(database.dataSource())
                .locations("classpath:apptest/migration")
                .table(prefix + "flyway_schema_history")
                .placeholders(Map.of("prefix", prefix))
                .baselineOnMigrate(true)
                .baselineVersion("0")
                .load()
                .migrate();

        assertThat(SchemaMigrations.migrate(database.dataSource(), detect(database), prefix).migrationsExecuted)
                .isPositive();
        assertThat(SchemaMigrations.migrate(database.dataSource(), detect(database), prefix).migrationsExecuted)
                .isZero();

        JooqCounterStore store = JooqCounterStore.builder(database.dataSource())
                .tablePrefix(prefix)
                .build();
        store.add(CounterName.of("orders.created"), "main", 3);
        assertThat(store.get(CounterName.of("orders.created"))).isEqualTo(3);
        // Each history table holds only its own migration (Flyway quotes the names it creates).
        DSLContext dsl = DSL.using(database.dataSource(), detect(database));
        assertThat(dsl.select(DSL.field(DSL.quotedName("script"), String.class))
                        .from(DSL.table(DSL.quotedName(prefix + "flyway_schema_history")))
                        .where(DSL.field(DSL.quotedName("version")).isNotNull())
                        .fetch(0, String.class))
                .containsOnlyOnce("V1__application_table.sql")
                .doesNotContain("V1__counter_cells.sql");
        assertThat(dsl.select(DSL.field(DSL.quotedName("script"), String.class))
                        .from(DSL.table(DSL.quotedName(SchemaMigrations.historyTable(prefix))))
                        .fetch(0, String.class))
                .contains("V1__counter_cells.sql")
                .doesNotContain("V1__application_table.sql");
    }

    private static SQLDialect detect(TestDatabase database) {
        return Databases.detect(database.dataSource());
    }

    @Test
    void refusesAnInvalidTablePrefix() {
        JooqCounterStore.Builder builder = JooqCounterStore.builder(TestDatabase.H2.dataSource());
        for (String bad : List.of("1abc", "app-", "a b", "x".repeat(33), "a;drop")) {
            assertThatThrownBy(() -> builder.tablePrefix(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Table prefix '" + bad + "' is invalid");
        }
    }

    @Test
    void missingTablesGiveAClearError() {
        JooqCounterStore store = JooqCounterStore.builder(TestDatabase.H2.dataSource())
                .tablePrefix("absent_")
                .build();
        assertThatThrownBy(() -> store.get(CounterName.of("x")))
                .isInstanceOf(dev.counters.CounterStoreException.class)
                .hasMessageContaining("absent_counter_cells");
    }
}
