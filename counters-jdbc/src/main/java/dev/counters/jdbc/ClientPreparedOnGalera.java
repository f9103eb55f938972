package dev.counters.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.jooq.ConnectionProvider;
import org.jooq.SQLDialect;
import org.jooq.exception.DataAccessException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On a node of a Galera cluster, has the library's statements prepared on the client, so that each one travels as
 * text ({@code COM_QUERY}) whatever the connection's settings say.
 *
 * <p>Why: MariaDB 10.11 can lose the abort of a transaction that a conflicting write from another node rolled back
 * (a brute-force abort) when the client uses server-side prepared statements (Connector/J's
 * {@code useServerPrepStmts=true}, the binary protocol). The next statements then run outside the transaction, each
 * committing on its own, and the commit reports success: part of the transaction is lost and the rest is applied. A
 * delta-log fold whose marks were lost while its sum was added counted its deltas twice, and other folds reported
 * success having done nothing. Sent as text, the same transactions reported every such abort as a deadlock (1213),
 * which the strategies retry or report like any rollback.
 *
 * <p>How: MySQL Connector/J's {@code useServerPrepStmts} can be changed on a live connection, and is read at every
 * {@code prepareStatement}. It is switched off while the store holds a connection and restored when the store gives
 * it back, so the application's own statements keep its settings. Statements still go through the pool's wrappers,
 * which must see their failures to evict a broken connection. Another driver cannot be switched: on Galera the store
 * logs that its statements must be prepared on the client (MariaDB Connector/J's default), as a warning when the URL
 * asks for the opposite.
 */
final class ClientPreparedOnGalera implements ConnectionProvider {

    private static final Logger LOG = LoggerFactory.getLogger(ClientPreparedOnGalera.class);

    private final ConnectionProvider delegate;
    private final Detection detection;
    /** The connections handed out with server-side preparation switched off, each with how many holds it has. */
    private final Map<Connection, Integer> switchedOff = new ConcurrentHashMap<>();

    private ClientPreparedOnGalera(ConnectionProvider delegate, Detection detection) {
        this.delegate = delegate;
        this.detection = detection;
    }

    /** {@code delegate}, made safe on Galera for a MySQL-family {@code dialect}; as it is for the others. */
    static ConnectionProvider of(ConnectionProvider delegate, SQLDialect dialect) {
        return switch (dialect.family()) {
            case MYSQL, MARIADB -> new ClientPreparedOnGalera(delegate, new Detection());
            default -> delegate;
        };
    }

    /**
     * What to wrap the provider of a caller's connection in, so that the store's statements in the caller's
     * transaction are safe in the same way: the same, for a provider {@link #of} made safe, sharing its answer to
     * whether the database is a Galera node.
     */
    static UnaryOperator<ConnectionProvider> forCallerConnections(ConnectionProvider provider) {
        // Asked at every write in a caller's transaction: once the database is known not to be Galera, nothing to do.
        return provider instanceof ClientPreparedOnGalera safe
                ? callers ->
                        safe.detection.knownNotGalera() ? callers : new ClientPreparedOnGalera(callers, safe.detection)
                : UnaryOperator.identity();
    }

    /**
     * Whether the connections of {@code provider} are on a Galera node, as far as known: false until the first
     * connection is acquired through it (so ask after acquiring one), and always for a provider {@link #of} left as
     * it was.
     */
    static BooleanSupplier galera(ConnectionProvider provider) {
        return provider instanceof ClientPreparedOnGalera safe
                ? () -> Boolean.TRUE.equals(safe.detection.galera)
                : () -> false;
    }

    /**
     * Runs {@code read} on {@code connection} with causal reads ({@code wsrep_sync_wait = 1}): the node first applies
     * every write set the cluster committed before the read began, so a write committed through another node is seen.
     * The session's own setting (a URL's {@code sessionVariables=wsrep_sync_wait=…}) is kept aside and restored
     * afterwards, so that the pool hands out the connection as it was.
     */
    static <T> T causalRead(Connection connection, Supplier<T> read) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET @counters_sync_wait = @@SESSION.wsrep_sync_wait,"
                    + " SESSION wsrep_sync_wait = @@SESSION.wsrep_sync_wait | 1");
            try {
                return read.get();
            } finally {
                statement.execute("SET SESSION wsrep_sync_wait = @counters_sync_wait");
            }
        }
    }

    @Override
    public @Nullable Connection acquire() {
        Connection connection = delegate.acquire();
        if (connection == null) {
            return null; // none to give, as the delegate says (jOOQ's contract allows it)
        }
        try {
            if (detection.isGaleraNode(connection)) {
                switchOff(connection);
            }
            return connection;
        } catch (SQLException | RuntimeException e) {
            delegate.release(connection);
            throw new DataAccessException("Could not tell whether the database is a Galera node: " + e.getMessage(), e);
        }
    }

    @Override
    public void release(Connection connection) {
        try {
            boolean[] lastHold = {false};
            switchedOff.computeIfPresent(connection, (held, holds) -> {
                lastHold[0] = holds == 1;
                return lastHold[0] ? null : holds - 1;
            });
            if (lastHold[0]) {
                ConnectorJ.serverSidePreparation(connection, true);
            }
        } catch (SQLException | RuntimeException e) {
            LOG.debug("Could not switch server-side prepared statements back on", e); // a broken connection
        } finally {
            delegate.release(connection);
        }
    }

    private void switchOff(Connection connection) throws SQLException {
        if (switchedOff.computeIfPresent(connection, (held, holds) -> holds + 1) == null
                && ConnectorJ.serverSidePreparation(connection, false)) {
            switchedOff.put(connection, 1);
        }
    }

    /** Whether the database is a Galera node: asked of the first connection that answers, then remembered. */
    private static final class Detection {

        private volatile @Nullable Boolean galera;

        boolean knownNotGalera() {
            return Boolean.FALSE.equals(galera);
        }

        boolean isGaleraNode(Connection connection) throws SQLException {
            Boolean known = galera;
            if (known == null) {
                known = Databases.isGaleraNode(connection);
                if (known && ConnectorJ.is(connection)) {
                    LOG.info("Galera cluster (wsrep_on=ON): the counters' statements are prepared on the client");
                } else if (known) {
                    String url =
                            String.valueOf(connection.getMetaData().getURL()).toLowerCase(Locale.ROOT);
                    String advice = "Galera cluster (wsrep_on=ON) through a driver other than MySQL Connector/J, whose"
                            + " preparation the counters cannot switch: keep its statements prepared on the client"
                            + " (MariaDB Connector/J's default; not useServerPrepStmts=true). With server-side prepared"
                            + " statements MariaDB can lose the abort of a transaction that a write on another node"
                            + " conflicted with, and commit part of it";
                    if (url.contains("useserverprepstmts=true")) {
                        LOG.warn("{}. Its URL asks for them (useServerPrepStmts=true)", advice);
                    } else {
                        LOG.info(advice);
                    }
                }
                galera = known;
            }
            return known;
        }
    }

    /**
     * MySQL Connector/J's {@code useServerPrepStmts} on a live connection
     * ({@code JdbcConnection.getPropertySet().getBooleanProperty(...)}, a property the driver lets change at run
     * time), reached by reflection: the driver is an optional dependency.
     */
    private record ConnectorJ(
            Class<?> connection,
            Method propertySet,
            Method booleanProperty,
            Object key,
            Method getValue,
            Method setValue) {

        private static final @Nullable ConnectorJ DRIVER = load();

        static boolean is(Connection connection) throws SQLException {
            return DRIVER != null && connection.isWrapperFor(DRIVER.connection);
        }

        /** Sets the connection's {@code useServerPrepStmts}: whether that changed it (false if not Connector/J's). */
        static boolean serverSidePreparation(Connection connection, boolean on) throws SQLException {
            if (DRIVER == null || !connection.isWrapperFor(DRIVER.connection)) {
                return false;
            }
            try {
                Object property = DRIVER.booleanProperty.invoke(
                        DRIVER.propertySet.invoke(connection.unwrap(DRIVER.connection)), DRIVER.key);
                if (Boolean.valueOf(on).equals(DRIVER.getValue.invoke(property))) {
                    return false;
                }
                DRIVER.setValue.invoke(property, on);
                return true;
            } catch (IllegalAccessException | InvocationTargetException e) {
                throw new IllegalStateException("Could not set Connector/J's useServerPrepStmts: " + e, e);
            }
        }

        private static @Nullable ConnectorJ load() {
            ClassLoader loader = ClientPreparedOnGalera.class.getClassLoader();
            try {
                Class<?> connection = Class.forName("com.mysql.cj.jdbc.JdbcConnection", false, loader);
                Class<?> propertySet = Class.forName("com.mysql.cj.conf.PropertySet", false, loader);
                Class<?> key = Class.forName("com.mysql.cj.conf.PropertyKey", false, loader);
                Class<?> property = Class.forName("com.mysql.cj.conf.RuntimeProperty", false, loader);
                return new ConnectorJ(
                        connection,
                        connection.getMethod("getPropertySet"),
                        propertySet.getMethod("getBooleanProperty", key),
                        key.getField("useServerPrepStmts").get(null),
                        property.getMethod("getValue"),
                        property.getMethod("setValue", Object.class));
            } catch (ReflectiveOperationException | LinkageError e) {
                return null; // not on the class path, or a version without these: nothing to switch
            }
        }
    }
}
