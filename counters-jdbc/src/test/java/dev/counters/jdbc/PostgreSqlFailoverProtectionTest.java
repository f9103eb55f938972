package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.jooq.SQLDialect;
import org.junit.jupiter.api.Test;

class PostgreSqlFailoverProtectionTest extends FailoverProtectionContract {

    PostgreSqlFailoverProtectionTest() {
        super(TestDatabase.POSTGRES);
    }

    @Test
    void theLiveHistoryAndTheDurabilityNeedNoPrivilegeAndTheHistoryHasTheTimeline() throws SQLException {
        String role = "counters_plain_" + System.nanoTime();
        try (Connection admin = TestDatabase.POSTGRES.dataSource().getConnection();
                Statement statement = admin.createStatement()) {
            statement.execute("create role " + role + " login password 'plain'");
        }
        String url = TestDatabase.POSTGRES.jdbcUrl().replaceAll("user=[^&]*", "user=" + role);
        try (Connection plain = DriverManager.getConnection(url, role, "plain");
                Statement statement = plain.createStatement();
                ResultSet rows = statement.executeQuery("select " + FailoverProtection.historySql(SQLDialect.POSTGRES)
                        + ", (select rolsuper from" + " pg_roles where rolname = current_user)")) {
            assertThat(rows.next()).isTrue();
            assertThat(rows.getBoolean(2)).as("superuser").isFalse();
            assertThat(rows.getString(1)).as("system identifier / timeline").matches("[0-9]+/00000001");
            assertThat(FailoverProtection.durability(org.jooq.impl.DSL.using(plain, SQLDialect.POSTGRES))
                            .settings())
                    .containsKeys("synchronous_commit", "synchronous_standby_names", "standbys");
        }
    }
}
