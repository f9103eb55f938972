package dev.counters.jdbc;

import java.time.Instant;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Query;
import org.jooq.Record1;
import org.jooq.ResultQuery;
import org.jooq.impl.DSL;

/** The SQL of {@code counter_batches}: the keys of applied batches. */
final class BatchQueries {

    private final CounterTables t;

    BatchQueries(CounterTables tables) {
        this.t = tables;
    }

    /** Records the key unless it is recorded: whether this call recorded it. */
    boolean record(DSLContext ctx, String key, Instant now) {
        return ctx.insertInto(t.batches, t.batchesKey, t.batchesAppliedAt)
                        .values(key, now.toEpochMilli())
                        .onConflict(t.batchesKey)
                        .doNothing()
                        .execute()
                == 1;
    }

    /** The key's insert, which fails with a duplicate key when it is recorded ({@code appliedAt} in epoch ms). */
    Query insert(DSLContext ctx, Field<String> key, Field<Long> appliedAt) {
        return ctx.insertInto(t.batches, t.batchesKey, t.batchesAppliedAt).values(key, appliedAt);
    }

    /** The key's insert, unless recorded, answering a row only when it inserted: for a data-modifying WITH. */
    ResultQuery<Record1<Integer>> recording(Field<String> key, Field<Long> appliedAt) {
        return DSL.insertInto(t.batches, t.batchesKey, t.batchesAppliedAt)
                .values(key, appliedAt)
                .onConflict(t.batchesKey)
                .doNothing()
                .returningResult(DSL.inline(1));
    }

    int prune(DSLContext ctx, Instant appliedBefore) {
        return ctx.deleteFrom(t.batches)
                .where(t.batchesAppliedAt.lt(appliedBefore.toEpochMilli()))
                .execute();
    }
}
