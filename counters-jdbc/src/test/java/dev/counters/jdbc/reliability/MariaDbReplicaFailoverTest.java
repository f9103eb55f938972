package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.FirstReadyNode;
import dev.counters.jdbc.testing.MariaDbProcess;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * {@link AsynchronousFailoverContract} on MariaDB: a primary (binlog, GTID) and an asynchronous replica, the replica's
 * replication stopped ({@code STOP SLAVE}) so that the reservations committed next never reach it, then the primary
 * killed with SIGKILL and the replica promoted (replication stopped and reset, {@code read_only} off), as an operator
 * or a tool such as MaxScale or Orchestrator would. The history that tells the primary's rows from the promoted
 * replica's is {@code @@server_id}.
 *
 * <p>The binlog format is {@code STATEMENT}, the hardest: the replica replays the statements that stamp the history.
 * It passes because the history is the session's {@code server_id}, which a replaying replica takes from the event's
 * origin; read as {@code @@global.server_id} it fails here (the replica stamps its own id, nothing skips, values
 * repeat). {@code ROW} and MariaDB's default {@code MIXED} log the stamps as rows and pass too.
 */
class MariaDbReplicaFailoverTest extends AsynchronousFailoverContract {

    private MariaDbProcess primary;
    private MariaDbProcess replica;
    private HikariDataSource pool;

    @Override
    String database() {
        return "MariaDB";
    }

    @Override
    DataSource start() throws SQLException {
        primary = MariaDbProcess.start(
                List.of(
                        "--innodb-flush-log-at-trx-commit=2",
                        "--server-id=1",
                        "--log-bin=primary-bin",
                        "--binlog-format=STATEMENT"),
                Map.of());
        replica = MariaDbProcess.start(
                List.of("--innodb-flush-log-at-trx-commit=2", "--server-id=2", "--read-only=ON"), Map.of());
        execute(
                replica,
                "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + primary.port()
                        + ", MASTER_USER='root', MASTER_PASSWORD='', MASTER_SSL=0, MASTER_USE_GTID=slave_pos",
                "START SLAVE");
        pool = pool(primary, replica);
        return pool;
    }

    @Override
    void awaitReplicated() throws SQLException {
        String position = query(primary, "SELECT @@gtid_binlog_pos");
        String waited = query(replica, "SELECT MASTER_GTID_WAIT('" + position + "', 30)");
        assertThat(waited)
                .as(() -> "the replica reached " + position + ": " + replicaStatus())
                .isEqualTo("0");
    }

    @Override
    void holdBackReplication() throws SQLException {
        execute(replica, "STOP SLAVE");
    }

    @Override
    String killPrimaryAndPromote() throws Exception {
        String acknowledged = query(primary, "SELECT @@gtid_binlog_pos");
        String replicated = query(replica, "SELECT @@gtid_slave_pos");
        assertThat(replicated).as("the replica is behind").isNotEqualTo(acknowledged);
        primary.kill();
        execute(replica, "STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF");
        pool.getHikariPoolMXBean().softEvictConnections(); // the new connections go to the promoted replica
        return "primary at GTID " + acknowledged + ", the replica at " + replicated
                + ", primary killed -9, replica promoted at once (replication reset, read_only off)";
    }

    @Override
    void stop() {
        if (pool != null) {
            pool.close();
        }
        Stream.of(primary, replica).filter(server -> server != null).forEach(MariaDbProcess::close);
    }

    /**
     * The application's pool: new connections go to the primary while it answers, else to the replica, as a load
     * balancer's health check or a DNS name moved by the promotion would send them.
     */
    private static HikariDataSource pool(MariaDbProcess... servers) {
        List<String> urls = Stream.of(servers)
                .map(server -> server.jdbcUrl() + EmbeddedMariaDb.DRIVER_SETTINGS
                        + "&connectTimeout=" + FaultyMariaDb.CONNECTION_TIMEOUT_MILLIS
                        + "&socketTimeout=" + FaultyMariaDb.SOCKET_TIMEOUT_MILLIS)
                .toList();
        HikariConfig config = new HikariConfig();
        config.setDataSource(new FirstReadyNode(urls, EmbeddedMariaDb.USER, ""));
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(FaultyMariaDb.CONNECTION_TIMEOUT_MILLIS);
        config.setValidationTimeout(1_000);
        return new HikariDataSource(config);
    }

    private String replicaStatus() {
        try (Connection connection = connect(replica);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SHOW SLAVE STATUS")) {
            if (!row.next()) {
                return "no replication configured";
            }
            return "IO " + row.getString("Slave_IO_Running") + " " + row.getString("Last_IO_Error") + ", SQL "
                    + row.getString("Slave_SQL_Running") + " " + row.getString("Last_SQL_Error");
        } catch (SQLException e) {
            return "(no status: " + e + ")";
        }
    }

    private static void execute(MariaDbProcess server, String... statements) throws SQLException {
        try (Connection connection = connect(server);
                Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    private static String query(MariaDbProcess server, String sql) throws SQLException {
        try (Connection connection = connect(server);
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getString(1);
        }
    }

    private static Connection connect(MariaDbProcess server) throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl() + "&connectTimeout=2000", EmbeddedMariaDb.USER, "");
    }
}
