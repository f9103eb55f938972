package dev.counters.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.jooq.ConnectionProvider;
import org.jooq.impl.DataSourceConnectionProvider;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the store's own statements off its callers' transactions. Spring's {@code TransactionAwareDataSourceProxy}
 * (which Spring Boot's jOOQ auto-configuration puts under its {@code DSLContext}, and which may be an application's
 * {@code DataSource}) hands out the connection of the calling thread's transaction: a block of numbers reserved on it,
 * a combined write carrying other callers' increments, a raised maximum would all be undone by that transaction's
 * rollback (numbers handed out twice, acknowledged increments lost), and a transaction of the store's own would commit
 * the caller's halfway. So the store takes its connections from the proxy's target. A proxy it cannot reach (inside a
 * wrapper of another kind) is refused. Joining a caller's transaction is what {@link CallerTransactions} is for.
 */
final class OwnConnections {

    private static final String TRANSACTION_AWARE =
            "org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy";

    private OwnConnections() {}

    /** {@code dataSource}, or the target of the transaction-aware proxy it is. */
    static DataSource of(DataSource dataSource) {
        DataSource own = dataSource;
        while (isTransactionAware(own.getClass())) {
            own = target(own);
        }
        Class<?> proxy = proxyClass(own);
        if (proxy != null && wraps(own, proxy)) {
            throw new IllegalArgumentException(
                    "The DataSource " + own.getClass().getName() + " wraps a Spring "
                            + "TransactionAwareDataSourceProxy, whose connections join the caller's transaction: the library's "
                            + "own writes (blocks of sequence numbers, combined increments) would be rolled back with it. Build "
                            + "the store on the DataSource under the proxy");
        }
        return own;
    }

    /** {@code provider}, or one on the target of the transaction-aware proxy its DataSource is. */
    static ConnectionProvider of(ConnectionProvider provider) {
        if (provider instanceof DataSourceConnectionProvider connections) {
            DataSource own = of(connections.dataSource());
            return own == connections.dataSource() ? provider : new DataSourceConnectionProvider(own);
        }
        return provider;
    }

    private static boolean isTransactionAware(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(TRANSACTION_AWARE)) {
                return true;
            }
        }
        return false;
    }

    private static DataSource target(DataSource proxy) {
        try {
            Object target = proxy.getClass().getMethod("getTargetDataSource").invoke(proxy);
            if (target instanceof DataSource dataSource) {
                return dataSource;
            }
            throw new IllegalArgumentException("The TransactionAwareDataSourceProxy has no target DataSource");
        } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException(
                    "Could not reach the target of " + proxy.getClass().getName(), e);
        }
    }

    private static @Nullable Class<?> proxyClass(DataSource dataSource) {
        try {
            return Class.forName(TRANSACTION_AWARE, false, dataSource.getClass().getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return null; // no Spring JDBC: nothing to look for
        }
    }

    private static boolean wraps(DataSource dataSource, Class<?> proxy) {
        try {
            return dataSource.isWrapperFor(proxy);
        } catch (SQLException | RuntimeException e) {
            return false; // a DataSource that cannot say is taken as it is
        }
    }
}
