package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.FirstReadyNode;
import dev.counters.jdbc.testing.GaleraCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The Galera tests' cluster: three MariaDB nodes on loopback, started on first use and shared by the test classes of
 * the JVM. Each application pool prefers one node and fails over to the others (Connector/J's multi-host URL), with
 * the timeouts a production pool should have and {@code wsrep_sync_wait=1}, so that a read waits for every write the
 * cluster committed before it, on whichever node.
 */
public final class GaleraNodes {

    public static final int NODES = 3;
    /** What docs/galera.md recommends for a pool on a Galera cluster: causal reads, on every node. */
    static final String CAUSAL_READS = "&sessionVariables=wsrep_sync_wait=1";

    private static GaleraCluster cluster;
    private static HikariDataSource direct;

    private GaleraNodes() {}

    static synchronized GaleraCluster cluster() {
        if (cluster == null) {
            cluster = GaleraCluster.start(NODES);
            GaleraCluster started = cluster;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close));
        }
        return cluster;
    }

    /**
     * A pool of an application node that writes through cluster node {@code node}, re-pointed to the next ready node
     * when that one is down ({@link FirstReadyNode}).
     */
    public static HikariDataSource pool(int node, int size) {
        return pool(node, size, EmbeddedMariaDb.DRIVER_SETTINGS);
    }

    /** The same, with Connector/J settings of its own in place of the tests' usual ones. */
    static HikariDataSource pool(int node, int size, String driverSettings) {
        HikariConfig config = new HikariConfig();
        List<String> urls = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            urls.add(cluster().jdbcUrl((node + i) % NODES).replace(EmbeddedMariaDb.DRIVER_SETTINGS, driverSettings)
                    + CAUSAL_READS
                    + "&connectTimeout=" + FaultyMariaDb.CONNECTION_TIMEOUT_MILLIS
                    + "&socketTimeout=" + FaultyMariaDb.SOCKET_TIMEOUT_MILLIS);
        }
        config.setDataSource(new FirstReadyNode(urls, EmbeddedMariaDb.USER, ""));
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(FaultyMariaDb.CONNECTION_TIMEOUT_MILLIS);
        config.setValidationTimeout(1_000);
        config.setInitializationFailTimeout(-1);
        config.setPoolName("galera-node-" + node);
        return new HikariDataSource(config);
    }

    /** A pool for set-up and for reading what was stored, shared by the tests. */
    static synchronized HikariDataSource direct() {
        if (direct == null) {
            direct = pool(0, 4);
            Runtime.getRuntime().addShutdownHook(new Thread(direct::close));
        }
        return direct;
    }

    static JooqCounterStore storedAt(String prefix) {
        return JooqCounterStore.builder(direct()).tablePrefix(prefix).build();
    }

    public static String freshSchema() {
        String prefix = "g" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        JooqCounterStore.builder(direct())
                .tablePrefix(prefix)
                .migrateSchema(true)
                .build();
        return prefix;
    }

    /**
     * Certification conflicts so far, summed over the nodes that are up: local transactions that failed certification
     * at commit, and those aborted by a conflicting write another node committed first ({@code wsrep_local_bf_aborts}).
     */
    static long conflicts() {
        long sum = 0;
        for (int node = 0; node < NODES; node++) {
            try (Connection connection =
                            java.sql.DriverManager.getConnection(cluster().jdbcUrl(node), EmbeddedMariaDb.USER, "");
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("show global status where variable_name in "
                            + "('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')")) {
                while (rows.next()) {
                    sum += rows.getLong(2);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("Could not read node " + node + "'s conflict counters", e);
            }
        }
        return sum;
    }
}
