package dev.counters.jdbc;

import dev.counters.CounterName;
import java.util.function.Function;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jspecify.annotations.Nullable;

/**
 * Runs the store's statements, and is the one place their failures are translated into the library's exceptions
 * ({@link SqlFailures}). It never retries: only a strategy knows whether repeating a write is safe. Work that must be
 * atomic runs in a transaction of the runner's own, or, for a {@link JoinedTransaction}, in the caller's.
 */
class StatementRunner {

    final DSLContext dsl;

    StatementRunner(DSLContext dsl) {
        this.dsl = dsl;
    }

    SQLDialect dialect() {
        return dsl.dialect();
    }

    /** Runs statements on no particular counter; {@code work} may answer null, as statements that answer nothing do. */
    final <T extends @Nullable Object> T run(String operation, Function<DSLContext, T> work) {
        return run(operation, null, 0, work);
    }

    /**
     * Runs statements on {@code counter}, adding {@code delta} to it (0: not an add; a refused value out of range
     * then says which counter overflows).
     */
    <T extends @Nullable Object> T run(
            String operation, @Nullable CounterName counter, long delta, Function<DSLContext, T> work) {
        try {
            return work.apply(dsl);
        } catch (RuntimeException e) {
            throw SqlFailures.translate(e, operation, counter, delta);
        }
    }

    /** Runs work atomically: in a transaction of its own; see {@link JoinedTransaction} for the other kind. */
    <T> T transaction(String operation, @Nullable CounterName counter, long delta, Function<DSLContext, T> work) {
        return run(operation, counter, delta, ctx -> ctx.transactionResult(tx -> work.apply(tx.dsl())));
    }

    /**
     * Makes sure a row exists before a write in a caller's transaction; nothing to do in a transaction of one's own,
     * where the write itself inserts it.
     */
    void createMissing(
            String operation,
            CounterName counter,
            Function<DSLContext, Boolean> exists,
            Function<DSLContext, Query> insertIgnoringConflicts) {}

    /**
     * A runner for statements inside a transaction this runner opened, on that transaction's context: its atomic work
     * runs as it is, since the enclosing transaction already makes it so.
     */
    StatementRunner within(DSLContext transaction) {
        return new StatementRunner(transaction) {
            @Override
            <T> T transaction(
                    String operation, @Nullable CounterName counter, long delta, Function<DSLContext, T> work) {
                return run(operation, counter, delta, work);
            }
        };
    }

    /** The caller's transaction, when this runner is bound to one. */
    boolean joinsCallerTransaction() {
        return false;
    }
}
