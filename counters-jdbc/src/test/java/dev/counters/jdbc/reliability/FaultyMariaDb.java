package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.MariaDbProcess;
import dev.counters.jdbc.testing.MySqlFaultProxy;
import java.io.IOException;
import java.util.UUID;

/**
 * The reliability suite's database: a MariaDB server process of its own (the suite kills and freezes it), and a
 * fault-injecting proxy in front of it. The application side reaches the server only through the proxy, with the
 * timeouts a production pool should have; the checks read through a direct connection.
 */
final class FaultyMariaDb {

    /** How long a caller may wait for a connection, and for a statement's reply. */
    static final int CONNECTION_TIMEOUT_MILLIS = 2_000;

    static final int SOCKET_TIMEOUT_MILLIS = 5_000;

    private static MariaDbProcess server;

    private FaultyMariaDb() {}

    /** The suite's server, started on first use and shared by its test classes. */
    static synchronized MariaDbProcess server() {
        if (server == null) {
            server = MariaDbProcess.start();
            MariaDbProcess started = server;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close));
        }
        return server;
    }

    static MySqlFaultProxy proxy(long seed) throws IOException {
        return new MySqlFaultProxy(server().port(), seed);
    }

    /** A pool as an application would configure it: bounded waits, started even while the database is down. */
    static HikariDataSource pool(int port, int size) {
        return pool(port, size, CONNECTION_TIMEOUT_MILLIS);
    }

    /** As {@link #pool(int, int)}, waiting at most {@code connectionTimeoutMillis} for a connection. */
    static HikariDataSource pool(int port, int size, int connectionTimeoutMillis) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(server().jdbcUrl(port) + "&cacheServerConfiguration=true&useLocalSessionState=true"
                + "&connectTimeout=" + CONNECTION_TIMEOUT_MILLIS
                + "&socketTimeout=" + SOCKET_TIMEOUT_MILLIS);
        config.setUsername(EmbeddedMariaDb.USER);
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(connectionTimeoutMillis);
        config.setValidationTimeout(1_000);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    private static HikariDataSource direct;

    /** A pool straight to the server, shared by the suite, for set-up and for reading what was stored. */
    static synchronized HikariDataSource direct() {
        if (direct == null) {
            direct = pool(server().port(), 4);
            Runtime.getRuntime().addShutdownHook(new Thread(direct::close));
        }
        return direct;
    }

    /** What is stored under {@code prefix}, read directly, without faults. */
    static JooqCounterStore storedAt(String prefix) {
        return JooqCounterStore.builder(direct()).tablePrefix(prefix).build();
    }

    /** A fresh table prefix with the schema migrated (directly, without faults). */
    static String freshSchema() {
        String prefix = "r" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        JooqCounterStore.builder(direct())
                .tablePrefix(prefix)
                .migrateSchema(true)
                .build();
        return prefix;
    }
}
