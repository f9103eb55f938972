package dev.counters.jdbc.testing;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} around a real one that breaks things on purpose, the way a network does:
 * <ul>
 *   <li>{@link #down}: no connection can be had;</li>
 *   <li>every Nth commit fails with a lost-connection error, either <em>after</em> the database committed (the
 *       ambiguous case: the client cannot tell) or <em>before</em> (rolled back);</li>
 *   <li>the same for every Nth auto-committed write statement (a query that writes, {@code INSERT … RETURNING} or H2's
 *       {@code FINAL TABLE}, included);</li>
 *   <li>{@link #deadlocks}: every statement is chosen as a deadlock victim, so its transaction is rolled back.</li>
 *   <li>{@link #beforeQuery}: something else happens in the database right before each query.</li>
 * </ul>
 * It also counts the SQL statements executed.
 */
public final class FaultInjectingDataSource implements DataSource {

    /** Where an injected failure strikes. */
    public enum Fault {
        /** The database committed, then the connection broke before the reply: the outcome is unknown to the client. */
        AFTER_COMMIT,
        /** The connection broke before the commit reached the database: nothing was written. */
        BEFORE_COMMIT,
        /** Alternately after and before. */
        ALTERNATE
    }

    private static final Set<String> EXECUTE = Set.of(
            "execute", "executeUpdate", "executeQuery", "executeBatch", "executeLargeUpdate", "executeLargeBatch");

    private final DataSource delegate;
    public volatile boolean down;
    /** The database becomes unreachable ({@link #down}) right after an injected commit failure. */
    public volatile boolean downAfterStrike;
    /** The database becomes unreachable right after any statement fails. */
    public volatile boolean downAfterFailedStatement;
    /** Every statement fails as a deadlock victim: rolled back, surely not applied. */
    public volatile boolean deadlocks;
    /** Every statement fails as a deadlock victim ({@link #deadlocks}) right after an injected commit failure. */
    public volatile boolean deadlocksAfterStrike;
    /** The database becomes unreachable right after a write commits (a commit, or an auto-committed write). */
    public volatile boolean downAfterWrite;
    /** Runs before every query (a statement that reads), as another client acting between two statements. */
    public volatile Runnable beforeQuery = () -> {};
    /** Runs with the SQL of every statement prepared. */
    public volatile Consumer<String> onPrepare = sql -> {};

    private volatile int failEvery;
    private volatile Fault fault = Fault.AFTER_COMMIT;

    public final AtomicLong statements = new AtomicLong();
    public final AtomicLong commits = new AtomicLong();
    public final AtomicLong injectedAfterCommit = new AtomicLong();
    public final AtomicLong injectedBeforeCommit = new AtomicLong();
    private final AtomicLong writes = new AtomicLong();

    public FaultInjectingDataSource(DataSource delegate) {
        this.delegate = delegate;
    }

    /** Makes every {@code n}th commit (and auto-committed write) fail as {@code fault} says; 0 stops it. */
    public void failEvery(int n, Fault fault) {
        this.fault = fault;
        this.failEvery = n;
    }

    public long injected() {
        return injectedAfterCommit.get() + injectedBeforeCommit.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (down) {
            throw new SQLTransientConnectionException("Connection refused (injected: database down)", "08001");
        }
        Connection real = delegate.getConnection();
        return (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Connection.class}, new ConnectionHandler(real));
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return getConnection();
    }

    private boolean strikes(long n) {
        int every = failEvery;
        return every > 0 && n % every == 0;
    }

    private final AtomicLong strikes = new AtomicLong();

    /** Whether this strike comes after the commit; called once per strike. */
    private boolean after() {
        return switch (fault) {
            case AFTER_COMMIT -> true;
            case BEFORE_COMMIT -> false;
            case ALTERNATE -> strikes.incrementAndGet() % 2 == 1;
        };
    }

    private SQLException lost(boolean afterCommit) {
        (afterCommit ? injectedAfterCommit : injectedBeforeCommit).incrementAndGet();
        if (downAfterStrike) {
            down = true;
        }
        if (deadlocksAfterStrike) {
            deadlocks = true;
        }
        return new SQLException(
                "Communications link failure during commit (injected, " + (afterCommit ? "after" : "before")
                        + " the database committed)",
                "08S01");
    }

    private final class ConnectionHandler implements InvocationHandler {

        private final Connection real;

        ConnectionHandler(Connection real) {
            this.real = real;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (method.getName().equals("commit")) {
                long n = commits.incrementAndGet();
                if (strikes(n)) {
                    boolean afterCommit = after();
                    if (afterCommit) {
                        real.commit();
                    } else {
                        real.rollback();
                    }
                    throw lost(afterCommit);
                }
            }
            Object result = call(real, method, args);
            if (method.getName().equals("commit") && downAfterWrite) {
                down = true;
            }
            if (result instanceof Statement statement) {
                Class<?> type = method.getName().equals("prepareStatement")
                        ? java.sql.PreparedStatement.class
                        : method.getName().equals("prepareCall") ? java.sql.CallableStatement.class : Statement.class;
                if (method.getName().startsWith("prepare")) {
                    onPrepare.accept((String) args[0]);
                }
                boolean writing = method.getName().startsWith("prepare") && writes((String) args[0]);
                return Proxy.newProxyInstance(
                        getClass().getClassLoader(),
                        new Class<?>[] {type},
                        new StatementHandler(statement, real, writing));
            }
            return result;
        }
    }

    /** Whether a prepared statement writes, even when it is run as a query. */
    private static boolean writes(String sql) {
        String statement = sql.strip().toLowerCase(Locale.ROOT);
        if (statement.startsWith("set statement ")) { // MariaDB's per-statement settings: the statement follows
            statement = statement.substring(statement.indexOf(" for ") + " for ".length());
        }
        return statement.startsWith("insert")
                || statement.startsWith("update")
                || statement.startsWith("delete")
                || statement.startsWith("merge")
                || statement.contains(" final table (");
    }

    private final class StatementHandler implements InvocationHandler {

        private final Statement real;
        private final Connection connection;
        /** A prepared statement that writes, whichever way it is executed. */
        private final boolean writing;

        StatementHandler(Statement real, Connection connection, boolean writing) {
            this.real = real;
            this.connection = connection;
            this.writing = writing;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            if (!EXECUTE.contains(method.getName())) {
                return call(real, method, args);
            }
            statements.incrementAndGet();
            if (deadlocks) {
                throw new SQLException("Deadlock found when trying to get lock (injected)", "40001", 1213);
            }
            boolean write = writing || !method.getName().equals("executeQuery");
            if (!write) {
                beforeQuery.run();
            }
            boolean autoCommit = write && connection.getAutoCommit();
            if (autoCommit && strikes(writes.incrementAndGet())) {
                if (!after()) {
                    throw lost(false); // never reached the database
                }
                call(real, method, args);
                throw lost(true); // executed and committed; the reply is lost
            }
            try {
                Object result = call(real, method, args);
                if (autoCommit && downAfterWrite) {
                    down = true;
                }
                return result;
            } catch (SQLException e) {
                if (downAfterFailedStatement) {
                    down = true;
                }
                throw e;
            }
        }
    }

    private static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return delegate.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        delegate.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        delegate.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return delegate.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return delegate.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
