package dev.counters.benchmarks;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;

/**
 * Counts the SQL statements sent through a {@link DataSource}: every {@code execute…} call is one round trip (a JDBC
 * batch counts once per {@code executeBatch}), and so is every {@code commit}.
 */
final class StatementCounter {

    private final LongAdder statements = new LongAdder();

    long count() {
        return statements.sum();
    }

    DataSource wrap(DataSource dataSource) {
        return proxy(DataSource.class, dataSource, (target, method, args) -> {
            Object result = invoke(target, method, args);
            return result instanceof Connection connection ? wrap(connection) : result;
        });
    }

    private Connection wrap(Connection connection) {
        return proxy(Connection.class, connection, (target, method, args) -> {
            if (method.getName().equals("commit")) {
                statements.increment();
            }
            Object result = invoke(target, method, args);
            return result instanceof Statement statement && !method.getName().equals("unwrap")
                    ? wrap(statement)
                    : result;
        });
    }

    private Statement wrap(Statement statement) {
        return (Statement) Proxy.newProxyInstance(
                StatementCounter.class.getClassLoader(), allStatementInterfaces(statement), (proxy, method, args) -> {
                    if (method.getName().startsWith("execute")) {
                        statements.increment();
                    }
                    return invoke(statement, method, args);
                });
    }

    /** The JDBC interfaces a statement implements, so that callers can still cast to PreparedStatement. */
    private static Class<?>[] allStatementInterfaces(Statement statement) {
        if (statement instanceof java.sql.CallableStatement) {
            return new Class<?>[] {java.sql.CallableStatement.class};
        }
        if (statement instanceof java.sql.PreparedStatement) {
            return new Class<?>[] {java.sql.PreparedStatement.class};
        }
        return new Class<?>[] {Statement.class};
    }

    @FunctionalInterface
    private interface Handler<T> {
        Object handle(T target, Method method, Object[] args) throws Throwable;
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, T target, Handler<T> handler) {
        InvocationHandler invocation = (proxy, method, args) -> handler.handle(target, method, args);
        return (T) Proxy.newProxyInstance(StatementCounter.class.getClassLoader(), new Class<?>[] {type}, invocation);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
