package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.Failovers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
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
            assertThat(FailoverProtection.durability(DSL.using(plain, SQLDialect.POSTGRES))
                            .settings())
                    .containsKeys("synchronous_commit", "synchronous_standby_names", "standbys");
        }
    }

    @Test
    void commitsThatWaitForANamedStandbyAreSynchronous() throws SQLException {
        try (Connection connection = TestDatabase.POSTGRES.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            // The server's commits do not wait (synchronous_commit is off there): only this session's would.
            statement.execute("set synchronous_commit = on");
            statement.execute("alter system set synchronous_standby_names = 'standby1'");
            try {
                statement.execute("select pg_reload_conf()");
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> FailoverProtection.durability(DSL.using(connection, SQLDialect.POSTGRES))
                                        .replication()
                                == Failovers.Replication.SYNCHRONOUS);
                assertThat(FailoverProtection.durability(DSL.using(connection, SQLDialect.POSTGRES))
                                .settings())
                        .containsEntry("synchronous_commit", "on")
                        .containsEntry("synchronous_standby_names", "standby1");
            } finally {
                statement.execute("alter system reset synchronous_standby_names");
                statement.execute("select pg_reload_conf()");
                statement.execute("reset synchronous_commit");
            }
        }
    }
}
