package dev.counters.jdbc;

import java.time.Instant;
import org.jooq.DSLContext;

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

    int prune(DSLContext ctx, Instant appliedBefore) {
        return ctx.deleteFrom(t.batches)
                .where(t.batchesAppliedAt.lt(appliedBefore.toEpochMilli()))
                .execute();
    }
}
