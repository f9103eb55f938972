package dev.counters.jdbc;

import java.sql.Connection;
import org.jooq.ConnectionProvider;
import org.jooq.exception.DataAccessException;

/**
 * Marks the failure to get a connection, so that it can be told apart from a failure after statements went out:
 * the first wrote nothing for sure ({@link dev.counters.StoreUnavailableException}), the second may have committed.
 */
final class ReachabilityAwareConnectionProvider implements ConnectionProvider {

    /** No connection could be had: nothing was sent to the database. */
    static final class Unreachable extends DataAccessException {

        private static final long serialVersionUID = 1L;

        Unreachable(RuntimeException cause) {
            super("No connection to the database could be had: " + cause.getMessage(), cause);
        }
    }

    private final ConnectionProvider delegate;

    ReachabilityAwareConnectionProvider(ConnectionProvider delegate) {
        this.delegate = delegate;
    }

    @Override
    public Connection acquire() {
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
