package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.reliability.FailoverDraws.Drawn;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.FirstReadyNode;
import dev.counters.jdbc.testing.MariaDbProcess;
import dev.counters.spi.Failovers;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Asynchronous replication loses what the primary acknowledged: a MariaDB primary (binlog, GTID) with a replica, the
 * replica's replication stopped on purpose so that the reservations committed next never reach it, then the primary
 * killed with SIGKILL and the replica promoted (replication stopped, {@code read_only} off), as an operator or a tool
 * such as MaxScale or Orchestrator would. The application's pool moves to the replica and draws again from a block
 * sequence and a monotonic counter, in three tables at once: without the protection ({@code failoverSkipAhead(0)},
 * the negative control) the promoted replica hands out values again; with a skip-ahead smaller than what was lost some
 * still repeat (the bound is a real one); with the default none does, and the store counted and logged its skip. The
 * history that tells the replica's rows from its own is {@code @@server_id}.
 */
class MariaDbReplicaFailoverTest {

    /** Draws of each kind replicated before the failover, then lost with it, then made on the promoted replica. */
    private static final int REPLICATED = 30;

    private static final int LOST = 50;
    private static final int AFTER = 50;
    /** Smaller than what the failover loses (more than {@link #LOST} values of each kind): values still repeat. */
    private static final long BELOW_THE_LOSS = 20;

    private static final String CONTROL = "skip-ahead 0";
    private static final String BOUNDED = "skip-ahead " + BELOW_THE_LOSS;
    private static final String PROTECTED = "the default skip-ahead";

    private static MariaDbProcess primary;
    private static MariaDbProcess replica;
    private static HikariDataSource pool;
    private static final List<Subject> subjects = new ArrayList<>();

    /** The same draws in tables of their own, through a store with a skip-ahead of its own. */
    private static final class Subject {
        final String name;
        final JooqCounterStore store;
        Drawn before;
        Drawn after;
        Optional<Failovers.Skips> skips;
        List<String> warnings;

        Subject(String name, UnaryOperator<JooqCounterStore.Builder> skipAhead) {
            this.name = name;
            String prefix = "f" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
            this.store = skipAhead
                    .apply(JooqCounterStore.builder(pool).tablePrefix(prefix).migrateSchema(true))
                    .build();
        }
    }

    @BeforeAll
    static void failOver() throws Exception {
        primary = MariaDbProcess.start(
                List.of(
                        "--innodb-flush-log-at-trx-commit=2",
                        "--server-id=1",
                        "--log-bin=primary-bin",
                        "--binlog-format=ROW"),
                Map.of());
        replica = MariaDbProcess.start(
                List.of("--innodb-flush-log-at-trx-commit=2", "--server-id=2", "--read-only=ON"), Map.of());
        execute(
                replica,
                "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=" + primary.port()
                        + ", MASTER_USER='root', MASTER_PASSWORD='', MASTER_SSL=0, MASTER_USE_GTID=slave_pos",
                "START SLAVE");
        pool = pool(primary, replica);
        subjects.add(new Subject(CONTROL, store -> store.failoverSkipAhead(0)));
        subjects.add(new Subject(BOUNDED, store -> store.failoverSkipAhead(BELOW_THE_LOSS)));
        subjects.add(new Subject(PROTECTED, store -> store)); // the default skip-ahead
        for (Subject subject : subjects) {
            subject.before = FailoverDraws.draw(subject.store, REPLICATED);
        }
        awaitReplicated();
        execute(replica, "STOP SLAVE"); // from here on, nothing the primary commits reaches the replica
        for (Subject subject : subjects) {
            subject.before = subject.before.plus(FailoverDraws.draw(subject.store, LOST));
        }
        String acknowledged = query(primary, "SELECT @@gtid_binlog_pos");
        String replicated = query(replica, "SELECT @@gtid_slave_pos");
        assertThat(replicated).as("the replica is behind").isNotEqualTo(acknowledged);
        System.out.printf(
                "MariaDB primary at GTID %s, the replica at %s, when the primary is killed%n",
                acknowledged, replicated);

        primary.kill();
        execute(replica, "STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = OFF");
        pool.getHikariPoolMXBean().softEvictConnections(); // the new connections go to the promoted replica

        for (Subject subject : subjects) {
            try (FailoverDraws.StandardError log = new FailoverDraws.StandardError()) {
                subject.after = FailoverDraws.draw(subject.store, AFTER);
                subject.skips = FailoverDraws.skips(subject.store);
                subject.after = subject.after.plus(FailoverDraws.draw(subject.store, AFTER));
                subject.warnings = log.warnings();
            }
            System.out.printf(
                    "MariaDB replica promoted, %s: %d of %d block-sequence numbers and %d of %d monotonic values "
                            + "handed out again; skips %s%n",
                    subject.name,
                    subject.before.repeatedNumbers(subject.after).size(),
                    subject.after.numbers().size(),
                    subject.before.repeatedValues(subject.after).size(),
                    subject.after.values().size(),
                    subject.skips);
        }
    }

    @AfterAll
    static void tearDown() {
        if (pool != null) {
            pool.close();
        }
        for (MariaDbProcess server : new MariaDbProcess[] {primary, replica}) {
            if (server != null) {
                server.close();
            }
        }
    }

    @Test
    void withoutTheProtectionThePromotedReplicaHandsOutValuesAgain() {
        Subject control = subject(CONTROL);
        assertThat(control.before.repeatedNumbers(control.after))
                .as("block-sequence numbers handed out again")
                .isNotEmpty();
        assertThat(control.before.repeatedValues(control.after))
                .as("monotonic values handed out again")
                .isNotEmpty();
        assertThat(control.skips).contains(new Failovers.Skips(0, 0));
        assertThat(control.warnings).isEmpty();
    }

    @Test
    void withTheProtectionNoValueRepeatsAndTheSkipIsCountedAndLogged() {
        Subject protectedOne = subject(PROTECTED);
        assertThat(protectedOne.before.repeatedNumbers(protectedOne.after)).isEmpty();
        assertThat(protectedOne.before.repeatedValues(protectedOne.after)).isEmpty();
        // The first draw of each after the change skips, once; the draws after it do not.
        assertThat(protectedOne.skips).contains(new Failovers.Skips(1, 1));
        assertThat(FailoverDraws.skips(protectedOne.store)).contains(new Failovers.Skips(1, 1));
        assertThat(protectedOne.warnings).hasSize(2);
    }

    @Test
    void aSkipAheadSmallerThanTheLossBoundsWhatRepeats() {
        Subject bounded = subject(BOUNDED);
        assertThat(bounded.before.repeatedNumbers(bounded.after)).isNotEmpty();
        assertThat(bounded.before.repeatedValues(bounded.after)).isNotEmpty();
        // Fewer repeat than without the protection: the skip covered the first part of the loss.
        Subject control = subject(CONTROL);
        assertThat(bounded.before.repeatedNumbers(bounded.after).size())
                .isLessThan(control.before.repeatedNumbers(control.after).size());
        assertThat(bounded.before.repeatedValues(bounded.after).size())
                .isLessThan(control.before.repeatedValues(control.after).size());
        assertThat(bounded.skips).contains(new Failovers.Skips(1, 1));
    }

    private static Subject subject(String name) {
        return subjects.stream()
                .filter(subject -> subject.name.equals(name))
                .findFirst()
                .orElseThrow();
    }

    /**
     * The application's pool: new connections go to the primary while it answers, else to the replica, as a
     * load balancer's health check or a DNS name moved by the promotion would send them.
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

    /** Waits until the replica has applied everything the primary has committed so far. */
    private static void awaitReplicated() throws SQLException {
        String position = query(primary, "SELECT @@gtid_binlog_pos");
        String waited = query(replica, "SELECT MASTER_GTID_WAIT('" + position + "', 30)");
        assertThat(waited)
                .as(() -> "the replica reached " + position + ": " + replicaStatus())
                .isEqualTo("0");
    }

    private static String replicaStatus() {
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
