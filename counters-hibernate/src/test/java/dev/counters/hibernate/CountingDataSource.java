package dev.counters.hibernate;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** A DataSource that counts, at the JDBC driver's door, the inserts Hibernate sends: one by one, or in batches. */
final class CountingDataSource {

    final AtomicInteger batches = new AtomicInteger();
    final AtomicInteger batchedRows = new AtomicInteger();
    final AtomicInteger singleUpdates = new AtomicInteger();
    final DataSource dataSource;

    CountingDataSource(DataSource target) {
        this.dataSource = proxy(
                DataSource.class,
                target,
                (method, result) -> method.equals("getConnection")
                        ? proxy(
                                Connection.class,
                                (Connection) result,
                                (connectionMethod, statement) -> connectionMethod.equals("prepareStatement")
                                        ? proxy(PreparedStatement.class, (PreparedStatement) statement, this::count)
                                        : statement)
                        : result);
    }

    private Object count(String method, Object result) {
        switch (method) {
            case "addBatch" -> batchedRows.incrementAndGet();
            case "executeBatch" -> batches.incrementAndGet();
            case "executeUpdate", "executeLargeUpdate" -> singleUpdates.incrementAndGet();
            default -> {}
        }
        return result;
    }

    void reset() {
        batches.set(0);
        batchedRows.set(0);
        singleUpdates.set(0);
    }

    /** Calls through to {@code target}, then passes each call's result through {@code after}. */
    private static <T> T proxy(Class<T> type, T target, java.util.function.BiFunction<String, Object, Object> after) {
        InvocationHandler handler = (self, method, arguments) -> {
            try {
                return after.apply(method.getName(), method.invoke(target, arguments));
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
