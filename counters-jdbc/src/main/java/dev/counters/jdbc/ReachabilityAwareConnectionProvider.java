package dev.counters.jdbc;

import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import org.jooq.ConnectionProvider;
import org.jooq.exception.DataAccessException;
import org.jspecify.annotations.Nullable;

/**
 * Marks the failure to get a connection, so that it can be told apart from a failure after statements went out:
 * the first wrote nothing for sure ({@link dev.counters.StoreUnavailableException}), the second may have committed.
 */
final class ReachabilityAwareConnectionProvider implements ConnectionProvider {

    /** No connection could be had: nothing was sent to the database. */
    static final class Unreachable extends DataAccessException {

        private static final long serialVersionUID = 1L;

        Unreachable(RuntimeException cause) {
            super("No connection to the database could be had: " + cause.getMessage() + poolExhausted(cause), cause);
        }

        /**
         * What the pool said if it gave up waiting for a free connection, and what counters take from it: HikariCP
         * says so with this exception, and gives the database's failure as its cause when it could not connect either.
         */
        private static String poolExhausted(Throwable failure) {
            for (Throwable t = failure; t != null; t = t.getCause()) {
                if (t instanceof SQLTransientConnectionException && t.getCause() == null) {
                    return ": " + t.getMessage() + ". If the pool was at its maximum size: counters keep one pooled "
                            + "connection per node id a node rule claims (MySQL, MariaDB, PostgreSQL), and a write "
                            + "inside a caller's transaction may take one besides the caller's; size the pool for that "
                            + "(README, 'Connection pool sizing'), or give counters a pool of their own";
                }
            }
            return "";
        }
    }

    private final ConnectionProvider delegate;

    ReachabilityAwareConnectionProvider(ConnectionProvider delegate) {
        this.delegate = delegate;
    }

    @Override
    public @Nullable Connection acquire() {
        try {
            return delegate.acquire();
        } catch (RuntimeException e) {
            throw new Unreachable(e);
        }
    }

    @Override
    public void release(Connection connection) {
        delegate.release(connection);
    }
}
