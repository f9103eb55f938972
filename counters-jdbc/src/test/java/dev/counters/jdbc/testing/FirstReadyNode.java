package dev.counters.jdbc.testing;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.List;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Connections to the nodes of a Galera cluster, in order of preference: each new connection goes to the first node that
 * answers a query (a node outside the primary component, or still joining, refuses it), as a load balancer's health
 * check would send it. A pool on it re-points itself: the connections of a dead node fail and are evicted, and the new
 * ones go to the next node. Each connection is a plain one to one server, so a transaction never moves between nodes.
 */
public final class FirstReadyNode implements DataSource {

    private final List<String> urls;
    private final String user;
    private final String password;

    public FirstReadyNode(List<String> urls, String user, String password) {
        this.urls = List.copyOf(urls);
        this.user = user;
        this.password = password;
    }

    @Override
    public Connection getConnection() throws SQLException {
        SQLException last = null;
        for (String url : urls) {
            Connection connection = null;
            try {
                connection = DriverManager.getConnection(url, user, password);
                try (Statement statement = connection.createStatement()) {
                    statement.execute("select 1");
                }
                return connection;
            } catch (SQLException e) {
                if (connection != null) {
                    connection.close();
                }
                if (last != null) {
                    e.addSuppressed(last);
                }
                last = e;
            }
        }
        throw last;
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("The nodes' user is fixed");
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        if (type.isInstance(this)) {
            return type.cast(this);
        }
        throw new SQLException("Not a wrapper of " + type);
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return type.isInstance(this);
    }
}
