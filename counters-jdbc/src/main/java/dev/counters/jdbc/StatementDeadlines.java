package dev.counters.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Cancels statements that run past their deadline, from one thread that looks every {@link #TICK_MILLIS} ms while
 * any is running: the bound of a JDBC query timeout without its cost. pgjdbc and Connector/J arm a timer task for
 * every execution with a timeout and wake their timer thread to do it: on a delta-log append that was 23 of
 * PostgreSQL's 57 µs of client CPU. Here a statement costs an entry in a map; a deadline is kept within a tick.
 *
 * <p>The cancel is the driver's {@link Statement#cancel()}, as its own timeout would send (a cancel request on
 * PostgreSQL, {@code KILL QUERY} on MySQL). It is made on the statement, never the connection, and a driver cancels
 * only a statement still running (pgjdbc: a statement that ended is idle and the cancel a no-op), so a late cancel
 * cannot reach the next statement on the same connection. The thread ends a second after the last statement did.
 */
final class StatementDeadlines {

    static final long TICK_MILLIS = 100;

    /** The statements running with a deadline, and their deadlines ({@link System#nanoTime()}). */
    private static final Map<Statement, Long> RUNNING = new ConcurrentHashMap<>();

    private static final AtomicBoolean LOOK_SCHEDULED = new AtomicBoolean();
    private static final ScheduledThreadPoolExecutor WATCHER = watcher();

    /** Runs the statement, cancelled if it is still running {@code seconds} after it started. */
    interface Execution<T> {
        T run() throws SQLException;
    }

    private StatementDeadlines() {}

    static <T> T run(Statement statement, int seconds, Execution<T> execution) throws SQLException {
        RUNNING.put(statement, System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds));
        try {
            scheduleLook();
            return execution.run();
        } finally {
            RUNNING.remove(statement);
        }
    }

    private static void scheduleLook() {
        if (!LOOK_SCHEDULED.get() && LOOK_SCHEDULED.compareAndSet(false, true)) {
            WATCHER.schedule(StatementDeadlines::look, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    private static void look() {
        try {
            long now = System.nanoTime();
            RUNNING.forEach((statement, deadline) -> {
                if (now - deadline >= 0 && RUNNING.remove(statement, deadline)) {
                    try {
                        statement.cancel();
                    } catch (SQLException | RuntimeException e) {
                        // it ended and was closed meanwhile: nothing left to cancel
                    }
                }
            });
        } finally {
            LOOK_SCHEDULED.set(false);
            if (!RUNNING.isEmpty()) {
                scheduleLook(); // a statement that registered meanwhile has scheduled it, or finds it scheduled
            }
        }
    }

    private static ScheduledThreadPoolExecutor watcher() {
        ScheduledThreadPoolExecutor watcher = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new Thread(task, "counters-statement-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        watcher.setKeepAliveTime(1, TimeUnit.SECONDS);
        watcher.allowCoreThreadTimeOut(true);
        return watcher;
    }
}
