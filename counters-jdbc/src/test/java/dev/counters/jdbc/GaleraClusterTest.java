package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.GaleraCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The Galera test cluster behaves like one: writes replicate, concurrent writers of a row on two nodes get
 * certification failures, the survivors of a killed node keep taking writes, a failover pool moves to them, and the
 * killed node rejoins with what it missed.
 */
class GaleraClusterTest {

    @Test
    void replicatesConflictsFailsOverAndRejoins() throws Exception {
        try (GaleraCluster cluster = GaleraCluster.start(3)) {
            try (Connection node0 = connect(cluster, 0);
                    Statement statement = node0.createStatement()) {
                statement.execute("CREATE TABLE galera_smoke (id INT PRIMARY KEY, v BIGINT NOT NULL)");
                statement.execute("INSERT INTO galera_smoke VALUES (1, 0)");
            }
            assertThat(read(cluster, 2, 1)).isEqualTo(0);

            // Both nodes update row 1, then commit at once: Galera certifies one and fails the other.
            List<SQLException> failures = new ArrayList<>();
            int commits = 0;
            ExecutorService committers = Executors.newFixedThreadPool(2);
            try (Connection first = connect(cluster, 0);
                    Connection second = connect(cluster, 1)) {
                first.setAutoCommit(false);
                second.setAutoCommit(false);
                for (int round = 0; round < 10; round++) {
                    increment(first);
                    increment(second);
                    Future<SQLException> a = committers.submit(() -> commit(first));
                    Future<SQLException> b = committers.submit(() -> commit(second));
                    for (Future<SQLException> outcome : List.of(a, b)) {
                        if (outcome.get() == null) {
                            commits++;
                        } else {
                            failures.add(outcome.get());
                        }
                    }
                }
            } finally {
                committers.shutdownNow();
            }
            assertThat(failures).isNotEmpty().allSatisfy(failure -> {
                assertThat(failure.getErrorCode()).isEqualTo(1213);
                assertThat(failure.getSQLState()).isEqualTo("40001");
            });
            assertThat(read(cluster, 2, 1)).as("no lost update").isEqualTo(commits);
            System.out.printf("Galera: %d commits, %d certification failures%n", commits, failures.size());

            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(cluster.failoverJdbcUrl(1));
            config.setUsername(EmbeddedMariaDb.USER);
            config.setPassword("");
            config.setMaximumPoolSize(2);
            config.setConnectionTimeout(5_000);
            try (HikariDataSource pool = new HikariDataSource(config)) {
                try (Connection connection = pool.getConnection()) {
                    assertThat(port(connection)).isEqualTo(cluster.port(1));
                }

                cluster.kill(1);
                long killed = System.nanoTime();
                write(cluster.jdbcUrl(0), 2);
                write(cluster.jdbcUrl(2), 3);
                Duration stall = Duration.ofNanos(System.nanoTime() - killed);
                System.out.printf("Galera: survivors took writes %d ms after the kill%n", stall.toMillis());
                assertThat(stall).isLessThan(Duration.ofSeconds(6));

                long failover = System.nanoTime();
                await().atMost(Duration.ofSeconds(10))
                        .pollInterval(Duration.ofMillis(100))
                        .ignoreExceptions()
                        .untilAsserted(() -> {
                            try (Connection connection = pool.getConnection();
                                    Statement statement = connection.createStatement()) {
                                assertThat(port(connection)).isNotEqualTo(cluster.port(1));
                                statement.executeUpdate("REPLACE INTO galera_smoke VALUES (4, 4)");
                            }
                        });
                System.out.printf(
                        "Galera: the failover pool wrote to another node in %d ms%n",
                        Duration.ofNanos(System.nanoTime() - failover).toMillis());
            }
            assertThat(read(cluster, 0, 4)).isEqualTo(4);

            cluster.restart(1);
            try (Connection node1 = connect(cluster, 1);
                    Statement statement = node1.createStatement()) {
                assertThat(status(statement, "wsrep_cluster_size")).isEqualTo("3");
                assertThat(status(statement, "wsrep_local_state_comment")).isEqualTo("Synced");
            }
            assertThat(read(cluster, 1, 2)).isEqualTo(2);
            assertThat(read(cluster, 1, 3)).isEqualTo(3);
            assertThat(read(cluster, 1, 4)).isEqualTo(4);
        }
    }

    private static Connection connect(GaleraCluster cluster, int node) throws SQLException {
        return DriverManager.getConnection(cluster.jdbcUrl(node), EmbeddedMariaDb.USER, "");
    }

    private static void increment(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate("UPDATE galera_smoke SET v = v + 1 WHERE id = 1");
        }
    }

    private static SQLException commit(Connection connection) throws SQLException {
        try {
            connection.commit();
            return null;
        } catch (SQLException e) {
            connection.rollback();
            return e;
        }
    }

    /** Writes row {@code id} with autocommit, retrying while the cluster settles after a node died. */
    private static void write(String url, int id) {
        await().atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(100))
                .ignoreExceptions()
                .untilAsserted(() -> {
                    try (Connection connection = DriverManager.getConnection(url, EmbeddedMariaDb.USER, "");
                            PreparedStatement statement =
                                    connection.prepareStatement("REPLACE INTO galera_smoke VALUES (?, ?)")) {
                        statement.setInt(1, id);
                        statement.setInt(2, id);
                        statement.executeUpdate();
                    }
                });
    }

    /** Row {@code id}'s value on {@code node}, after the node has applied every write the cluster committed. */
    private static long read(GaleraCluster cluster, int node, int id) throws SQLException {
        try (Connection connection = connect(cluster, node);
                Statement statement = connection.createStatement()) {
            statement.execute("SET SESSION wsrep_sync_wait = 1");
            try (ResultSet row = statement.executeQuery("SELECT v FROM galera_smoke WHERE id = " + id)) {
                assertThat(row.next()).as("row %d on node %d", id, node).isTrue();
                return row.getLong(1);
            }
        }
    }

    private static int port(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT @@port")) {
            row.next();
            return row.getInt(1);
        }
    }

    private static String status(Statement statement, String variable) throws SQLException {
        try (ResultSet row = statement.executeQuery("SHOW STATUS LIKE '" + variable + "'")) {
            row.next();
            return row.getString(2);
        }
    }
}
