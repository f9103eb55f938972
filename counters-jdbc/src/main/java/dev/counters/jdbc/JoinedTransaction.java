package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.TransientStoreException;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.function.Function;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * Statements run in the transaction of the calling thread (see
 * {@link dev.counters.spi.CounterStore#callerTransaction()}): on its connection, which it never commits, rolls back
 * or closes. Work that must be atomic runs as it is, since the caller's transaction already makes it so.
 */
final class JoinedTransaction extends StatementRunner {

    /** The store's own runner, for the rows that must exist before the caller's transaction writes them. */
    private final StatementRunner outside;

    /** {@code connection} gives the caller's connection, never closing it. */
    JoinedTransaction(StatementRunner outside, ConnectionProvider connection) {
        super(DSL.using(outside.dsl.configuration().derive(connection)));
        this.outside = outside;
    }

    @Override
    <T> T transaction(String operation, @Nullable CounterName counter, long delta, Function<DSLContext, T> work) {
        return run(operation, counter, delta, work);
    }

    /**
     * On PostgreSQL an add runs under a savepoint, rolled back to if it fails: there a failed statement (an overflow,
     * which says nothing was written) would abort the caller's whole transaction; this way only the add is undone,
     * and the caller's transaction goes on. MySQL, MariaDB and H2 undo the failed statement alone by themselves.
     */
    @Override
    <T extends @Nullable Object> T run(
            String operation, @Nullable CounterName counter, long delta, Function<DSLContext, T> work) {
        if (delta == 0 || dialect().family() != SQLDialect.POSTGRES) {
            return super.run(operation, counter, delta, work);
        }
        return super.run(
                operation,
                counter,
                delta,
                ctx -> ctx.connectionResult(connection -> {
                    Savepoint savepoint = connection.setSavepoint();
                    T result;
                    try {
                        result = work.apply(ctx);
                    } catch (RuntimeException e) {
                        try {
                            connection.rollback(savepoint);
                        } catch (SQLException | RuntimeException undo) {
                            e.addSuppressed(undo); // the connection is likely gone; the failure says what is known
                        }
                        throw e;
                    }
                    connection.releaseSavepoint(savepoint);
                    return result;
                }));
    }

    /**
     * A missing row (a counter's cell, a sequence) is first created in a transaction of its own, by a plain read and
     * an insert that ignores conflicts. Inserted in the caller's transaction, two callers creating the same row would
     * race (one fails, or deadlocks under MySQL's gap locks), and the first would block every other until it ends.
     */
    @Override
    void createMissing(
            String operation,
            CounterName counter,
            Function<DSLContext, Boolean> exists,
            Function<DSLContext, Query> insertIgnoringConflicts) {
        if (!run(operation, counter, 0, exists)) {
            try {
                outside.run(
                        operation,
                        counter,
                        0,
                        ctx -> insertIgnoringConflicts.apply(ctx).execute());
            } catch (TransientStoreException e) {
                // Another caller's insert of the same row won (H2 reports the race as a key violation). Nothing to
                // repeat: the caller's own write creates the row if that insert is rolled back after all.
            }
        }
    }

    /** The caller's transaction is the enclosing one: this runner already runs in it. */
    @Override
    StatementRunner within(DSLContext transaction) {
        return this;
    }

    @Override
    boolean joinsCallerTransaction() {
        return true;
    }
}
