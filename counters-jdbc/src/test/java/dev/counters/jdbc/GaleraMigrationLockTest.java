package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.reliability.GaleraNodes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

/**
 * On a Galera cluster the library's migrations wait for another instance's, cluster-wide (GaleraTest starts two
 * instances migrating through two nodes at once); a lock left behind ends the wait with a message that says what to do.
 */
class GaleraMigrationLockTest {

    private final String prefix =
            "l" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";

    @Test
    void aLockLeftBehindEndsTheWaitNamingItAndNothingIsMigratedUntilItIsDropped() throws SQLException {
        String lock = prefix + "counters_migration_lock";
        try (HikariDataSource node0 = GaleraNodes.pool(0, 2);
                HikariDataSource node1 = GaleraNodes.pool(1, 2)) {
            execute(node0, "create table " + lock + " (held_since timestamp not null)");

            assertThatThrownBy(
                            () -> SchemaMigrations.migrate(node1, SQLDialect.MARIADB, prefix, Duration.ofMillis(500)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("applying the counters' migrations on this Galera cluster")
                    .hasMessageContaining("drop table " + lock);
            assertThat(exists(node0, prefix + "counter_cells"))
                    .as("migrated without the lock")
                    .isFalse();

            execute(node0, "drop table " + lock);
            SchemaMigrations.migrate(node1, SQLDialect.MARIADB, prefix, Duration.ofMillis(500));
            JooqCounterStore.builder(node0).tablePrefix(prefix).build().checkSchema();
            assertThat(exists(node0, lock)).as("the lock is released").isFalse();
        }
    }

    private static void execute(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static boolean exists(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("select count(*) from information_schema.tables"
                        + " where table_schema = database() and table_name = '" + table + "'")) {
            rows.next();
            return rows.getLong(1) > 0;
        }
    }
}
