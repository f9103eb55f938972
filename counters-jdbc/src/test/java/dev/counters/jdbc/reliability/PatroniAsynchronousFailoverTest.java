package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.testing.PatroniCluster;
import dev.counters.jdbc.testing.PatroniCluster.Node;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link AsynchronousFailoverContract} on PostgreSQL under Patroni in asynchronous mode ({@code synchronous_mode}
 * off, {@code maximum_lag_on_failover} large enough for Patroni to promote a standby that is behind). Replication is
 * held back by stopping the primary's walsenders with SIGSTOP: commits go on (nothing waits for a standby), and their
 * WAL is never sent. (Stopping the standbys' walreceivers instead would not do: the WAL sent meanwhile waits in their
 * sockets, and a walreceiver let go for the promotion could still read it.) Then the primary is killed with SIGKILL,
 * its stopped walsenders with it, Patroni promotes a standby once the leader key expires, and the application's pool
 * finds it through pgJDBC's multi-host URL. The history the store compares is PostgreSQL's system identifier and
 * timeline, which the promotion moves on.
 */
class PatroniAsynchronousFailoverTest extends AsynchronousFailoverContract {

    /** What the store records as the history of a row, read here with the superuser to compare with its log lines. */
    private static final String HISTORY = "select (select system_identifier from pg_control_system())::text || '/' || "
            + "substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)";

    private static final Duration REPLICATION_TIMEOUT = Duration.ofSeconds(30);

    private PatroniCluster cluster;
    private HikariDataSource pool;
    private Node primary;
    private List<ProcessHandle> walsenders = List.of();
    private String historyBefore;
    private String historyAfter;

    @Override
    String database() {
        return "PostgreSQL (Patroni, asynchronous)";
    }

    @Override
    DataSource start() throws SQLException {
        cluster = PatroniCluster.builder()
                .synchronousMode(false)
                .maximumLagOnFailover(1L << 30)
                .start();
        primary = cluster.primary();
        historyBefore = query(primary, HISTORY);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(cluster.jdbcUrl());
        config.setUsername(PatroniCluster.USER);
        config.setPassword(PatroniCluster.PASSWORD);
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(5_000);
        config.setValidationTimeout(1_000);
        pool = new HikariDataSource(config);
        return pool;
    }

    @Override
    void awaitReplicated() throws Exception {
        String position = query(primary, "select pg_current_wal_lsn()::text");
        long standbys = cluster.nodes().size() - 1;
        long deadline = System.nanoTime() + REPLICATION_TIMEOUT.toNanos();
        while (Long.parseLong(query(
                        primary,
                        "select count(*) from pg_stat_replication where replay_lsn >= '" + position + "'::pg_lsn"))
                < standbys) {
            assertThat(System.nanoTime() - deadline)
                    .as("standbys replayed " + position)
                    .isNegative();
            Thread.sleep(50);
        }
    }

    @Override
    void holdBackReplication() throws Exception {
        walsenders = primary.postmaster()
                .orElseThrow(() -> new AssertionError("No postmaster on " + primary))
                .children()
                .filter(child -> commandLine(child).contains(" walsender "))
                .toList();
        assertThat(walsenders)
                .as("a walsender per standby")
                .hasSize(cluster.nodes().size() - 1);
        for (ProcessHandle walsender : walsenders) {
            signal("STOP", walsender);
        }
    }

    @Override
    String killPrimaryAndPromote() throws Exception {
        String acknowledged = query(primary, "select pg_current_wal_lsn()::text");
        List<String> behind = new ArrayList<>();
        for (Node standby : cluster.nodes()) {
            if (standby != primary) {
                String received = query(standby, "select pg_last_wal_receive_lsn()::text");
                assertThat(query(standby, "select pg_wal_lsn_diff('" + acknowledged + "', '" + received + "')"))
                        .as(standby + " is behind")
                        .matches("[1-9][0-9]*");
                behind.add(standby + " received " + received);
            }
        }
        long killed = System.nanoTime();
        cluster.kill(primary);
        walsenders.forEach(ProcessHandle::destroyForcibly); // stopped, they never sent the rest
        Node promoted = cluster.awaitNewPrimary(primary);
        long deadline = System.nanoTime() + REPLICATION_TIMEOUT.toNanos();
        while (query(promoted, "select pg_is_in_recovery()").equals("t")) { // Patroni calls it primary a bit early
            assertThat(System.nanoTime() - deadline)
                    .as(promoted + " out of recovery")
                    .isNegative();
            Thread.sleep(50);
        }
        long promotedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
        historyAfter = query(promoted, HISTORY);
        pool.getHikariPoolMXBean().softEvictConnections(); // the new connections go to the new primary
        return "primary " + primary + " at LSN " + acknowledged + ", " + String.join(", ", behind)
                + ", primary killed -9, Patroni promoted " + promoted + " " + promotedAfter + " ms after the kill"
                + " (history " + historyBefore + " -> " + historyAfter + ")";
    }

    @Override
    void stop() {
        walsenders.forEach(ProcessHandle::destroyForcibly); // stopped, they would outlive their postmaster
        if (pool != null) {
            pool.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theStoreSawTheTimelineChange() {
        assertThat(historyAfter).isNotEqualTo(historyBefore);
        assertThat(subject(PROTECTED).warnings)
                .isNotEmpty()
                .allSatisfy(line -> assertThat(line).contains(historyBefore).contains(historyAfter));
    }

    /** The process title PostgreSQL gave {@code process} ("postgres: counters: walsender replicator ..."). */
    private static String commandLine(ProcessHandle process) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(process.pid()), "cmdline"), StandardCharsets.UTF_8)
                    .replace('\0', ' ');
        } catch (IOException e) {
            return ""; // gone
        }
    }

    private static void signal(String signal, ProcessHandle process) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                .inheritIO()
                .start();
        assertThat(kill.waitFor()).as("kill -" + signal + " " + process.pid()).isZero();
    }

    private String query(Node node, String sql) throws SQLException {
        try (Connection connection = cluster.connectAsSuperuser(node, PatroniCluster.DATABASE);
                PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet row = statement.executeQuery()) {
            row.next();
            return Optional.ofNullable(row.getString(1)).orElseThrow(() -> new AssertionError(sql + " gave null"));
        }
    }
}
