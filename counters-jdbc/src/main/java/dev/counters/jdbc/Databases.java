package dev.counters.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;
import org.jooq.ConnectionProvider;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;

/** Recognises the database behind a connection, and the per-vendor details that follow from it. */
final class Databases {

    private Databases() {}

    static SQLDialect detect(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            return detect(connection.getMetaData());
        } catch (SQLException e) {
            throw new IllegalStateException("Could not connect to detect the database: " + e.getMessage(), e);
        }
    }

    static SQLDialect detect(DatabaseMetaData metaData) throws SQLException {
        String product = metaData.getDatabaseProductName().toLowerCase(Locale.ROOT);
        String version = metaData.getDatabaseProductVersion().toLowerCase(Locale.ROOT);
        if (product.contains("h2")) {
            return SQLDialect.H2;
        }
        if (product.contains("postgresql")) {
            return SQLDialect.POSTGRES;
        }
        // MySQL Connector/J reports a MariaDB server as "MySQL" with a version such as "11.4.5-MariaDB".
        if (product.contains("mariadb") || (product.contains("mysql") && version.contains("mariadb"))) {
            return SQLDialect.MARIADB;
        }
        if (product.contains("mysql")) {
            return SQLDialect.MYSQL;
        }
        throw new IllegalStateException("Unsupported database '" + metaData.getDatabaseProductName() + " "
                + metaData.getDatabaseProductVersion() + "': counters supports H2, MySQL, MariaDB and PostgreSQL");
    }

    /**
     * Whether a MySQL-family server is a node of a Galera cluster ({@code wsrep_on}): writes go to every node, but
     * {@code GET_LOCK} and {@code SELECT ... FOR UPDATE} exclude only on the node they ran on.
     */
    static boolean isGaleraNode(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("show variables like 'wsrep_on'")) {
            return rows.next() && "ON".equalsIgnoreCase(rows.getString(2));
        }
    }

    /**
     * Whether the connections of {@code connections} share PostgreSQL server sessions (backends) between them, as
     * PgBouncer's transaction and statement pooling modes do: outside a transaction a client connection has no server
     * session of its own. Seen with two connections: while the second holds a transaction open (which pins a server
     * session to it), either it sits on the first one's backend, or the first one is now on another backend. A
     * session-mode pooler or a direct connection keeps each client on its one backend, so no look can see sharing
     * there; through a pooler one look may miss it (another client took the backend the second would have reused),
     * so it looks up to {@link #SHARING_LOOKS} times.
     */
    static boolean sharesServerSessions(ConnectionProvider connections) {
        for (int look = 0; look < SHARING_LOOKS; look++) {
            if (sharingSeen(connections)) {
                return true;
            }
        }
        return false;
    }

    /** How many times {@link #sharesServerSessions} looks before it takes the server sessions for unshared. */
    static final int SHARING_LOOKS = 5;

    private static boolean sharingSeen(ConnectionProvider connections) {
        Connection first = acquire(connections);
        try {
            first.setAutoCommit(true);
            int before = backend(first);
            Connection second = acquire(connections);
            try {
                second.setAutoCommit(false);
                try {
                    int pinned = backend(second);
                    return pinned == before || backend(first) != before;
                } finally {
                    second.rollback();
                }
            } finally {
                connections.release(second);
            }
        } catch (SQLException e) {
            throw new DataAccessException("Could not compare the server sessions of two connections", e);
        } finally {
            connections.release(first);
        }
    }

    /** A connection of {@code connections}, which jOOQ's contract lets answer none: that is a failure here. */
    static Connection acquire(ConnectionProvider connections) {
        Connection connection = connections.acquire();
        if (connection == null) {
            throw new DataAccessException("The connection provider gave no connection");
        }
        return connection;
    }

    private static int backend(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("select pg_backend_pid()")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /**
     * The folder of migrations for a dialect, under {@code dev/counters/jdbc/migration}: {@code standard} holds DDL
     * that H2 and PostgreSQL both accept, {@code mysql} the MySQL/MariaDB form (engine, binary collation).
     */
    static String migrationFolder(SQLDialect dialect) {
        return switch (dialect.family()) {
            case H2, POSTGRES -> "standard";
            case MARIADB, MYSQL -> "mysql";
            default ->
                throw new IllegalStateException("No migrations for dialect " + dialect
                        + ": counters supports H2, MySQL, MariaDB and PostgreSQL");
        };
    }
}
