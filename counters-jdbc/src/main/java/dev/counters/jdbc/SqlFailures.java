package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.CountersException;
import dev.counters.StoreUnavailableException;
import dev.counters.TransientStoreException;
import java.sql.SQLException;
import java.util.Set;
import org.jooq.exception.DataAccessException;
import org.jspecify.annotations.Nullable;

/**
 * Turns database errors into the library's exceptions. Only errors that prove the transaction was rolled back
 * become {@link TransientStoreException} (safe to retry); everything else, a lost connection above all, leaves
 * the outcome of a write unknown and is never retried.
 */
final class SqlFailures {

    /**
     * Serialization failure (MySQL/MariaDB report deadlocks with it too, and Galera its certification conflicts: the
     * loser of two nodes' writes to one row is rolled back with 1213), PostgreSQL deadlock and lock timeout, H2 lock
     * timeout.
     */
    private static final Set<String> ROLLED_BACK_STATES = Set.of("40001", "40P01", "55P03", "HYT00");

    /** Unique violation: a concurrent first insert of the same key won the race, so this statement did nothing. */
    private static final String UNIQUE_VIOLATION = "23505";

    private static final int MYSQL_LOCK_WAIT_TIMEOUT = 1205;
    private static final int MYSQL_DEADLOCK = 1213;
    private static final int MYSQL_DUPLICATE_KEY = 1062;
    /**
     * A Galera node outside the primary component ("WSREP has not yet prepared node for application use") refuses a
     * command before running it, a {@code COMMIT} included: nothing of its transaction left the node.
     */
    private static final int GALERA_NODE_NOT_READY = 1047;

    private static final int H2_CONCURRENT_UPDATE = 90131;
    private static final String NUMERIC_OUT_OF_RANGE = "22003";
    /**
     * PostgreSQL's "prepared statement ... already exists" and "... does not exist": what pgjdbc's named server-side
     * statements meet behind a pooler that moves a client between server sessions (PgBouncer in transaction mode).
     */
    private static final Set<String> PREPARED_STATEMENT_LOST = Set.of("42P05", "26000");

    private static final String PREPARED_STATEMENTS_BEHIND_A_POOLER = ". Behind PgBouncer in transaction or "
            + "statement mode, pgjdbc's server-side prepared statements need PgBouncer 1.21 or newer with "
            + "max_prepared_statements set; or add prepareThreshold=0 to the JDBC URL";
    /** MySQL/MariaDB "BIGINT value is out of range", which Connector/J reports as 22001. */
    private static final int MYSQL_OUT_OF_RANGE = 1690;

    private SqlFailures() {}

    /** Translates the failure of an operation on no particular counter. */
    static RuntimeException translate(RuntimeException e, String operation) {
        return translate(e, operation, null, 0);
    }

    /** Translates the failure of an operation on {@code counter} that added {@code delta} (0: not an add). */
    static RuntimeException translate(RuntimeException e, String operation, @Nullable CounterName counter, long delta) {
        if (e instanceof CountersException) {
            return e; // translated already, by a statement inside this transaction
        }
        String what = counter == null ? operation : operation + " of counter '" + counter + "'";
        if (isUnreachable(e)) {
            return new StoreUnavailableException(what + " wrote nothing: " + e.getMessage(), e);
        }
        SQLException sql = sqlException(e);
        if (sql == null) {
            return e instanceof DataAccessException
                    ? new CounterStoreException(what + " failed: " + e.getMessage(), e)
                    : e;
        }
        String state = sql.getSQLState() == null ? "" : sql.getSQLState();
        int code = sql.getErrorCode();
        if (counter != null && delta != 0 && isOutOfRange(state, code)) {
            CounterOverflowException overflow = new CounterOverflowException(counter, delta);
            overflow.initCause(e);
            return overflow;
        }
        String detail = " (" + state + ", " + code + "): " + sql.getMessage();
        if (isRolledBack(state, code)) {
            return new TransientStoreException(what + " was rolled back" + detail, e);
        }
        if (PREPARED_STATEMENT_LOST.contains(state)) {
            detail += PREPARED_STATEMENTS_BEHIND_A_POOLER;
        }
        return new CounterStoreException(what + " failed" + detail, e);
    }

    /** Whether MySQL or MariaDB refused a row whose unique key another row has. */
    static boolean isMySqlDuplicateKey(SQLException e) {
        return e.getErrorCode() == MYSQL_DUPLICATE_KEY;
    }

    /** Whether the database refused a value out of its range: the statement, and so its transaction, failed. */
    static boolean isOutOfRange(Throwable e) {
        SQLException sql = sqlException(e);
        return sql != null && isOutOfRange(sql.getSQLState() == null ? "" : sql.getSQLState(), sql.getErrorCode());
    }

    private static boolean isOutOfRange(String state, int code) {
        return NUMERIC_OUT_OF_RANGE.equals(state) || code == MYSQL_OUT_OF_RANGE;
    }

    private static boolean isRolledBack(String state, int code) {
        return ROLLED_BACK_STATES.contains(state)
                || UNIQUE_VIOLATION.equals(state)
                || code == MYSQL_LOCK_WAIT_TIMEOUT
                || code == MYSQL_DEADLOCK
                || code == MYSQL_DUPLICATE_KEY
                || code == H2_CONCURRENT_UPDATE
                || code == GALERA_NODE_NOT_READY;
    }

    private static boolean isUnreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ReachabilityAwareConnectionProvider.Unreachable) {
                return true;
            }
        }
        return false;
    }

    private static @Nullable SQLException sqlException(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql) {
                return sql;
            }
        }
        return null;
    }
}
