package dev.counters.jdbc;

import static dev.counters.jdbc.RenderedStatement.marker;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.select;

import dev.counters.CounterName;
import dev.counters.TransientStoreException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.Record1;
import org.jooq.Select;

/** The SQL of {@code counter_deltas}: the delta log, its folds and its purge. */
final class DeltaQueries {

    /**
     * How long an append's {@code INSERT} may run before it is ended: by MariaDB itself ({@code max_statement_time}),
     * elsewhere by the driver's cancel (a cancel request on PostgreSQL, a {@code KILL QUERY} on MySQL), made within
     * {@link StatementDeadlines#TICK_MILLIS} ms of the deadline; see {@link RenderedStatement}. An ended append's
     * outcome is unknown, like any failure that is not a rollback, so delta-log retries it under the same id. The
     * bound keeps a late append from landing after its tombstone was purged: an attempt starts at most
     * {@code folded-retention / 2} after the row's time (delta-log's retry window), waits for a connection (the pool's
     * timeout), then runs at most 4 s (plus a tick and the cancel's round trip), while the tombstone is purged no
     * earlier than {@code folded-retention} after the row's time. So {@code folded-retention / 2} must exceed the
     * pool's connection timeout plus 4 s: with the default 10 minutes and a 30 s pool timeout the margin is 4 min 26 s.
     * A server that holds the statement (a metadata lock, a Galera backup lock) thus cannot run it once a retry may
     * have been acknowledged and folded, and its tombstone purged. A statement the server has not started (a server
     * frozen with it in its receive buffer) is not covered.
     */
    static final int APPEND_TIMEOUT_SECONDS = 4;

    /** The mark of a delta not folded yet: it counts in its counter's value (see {@link CellQueries#total}). */
    static final short UNFOLDED = 0;

    private static final short FOLDED = 1;

    private final CounterTables t;

    /** The hot path's statements, rendered once (see {@link RenderedStatement}). */
    private final RenderedStatement append;

    private final RenderedStatement stored;

    DeltaQueries(CounterTables tables) {
        this.t = tables;
        this.append = new RenderedStatement(
                ctx -> ctx.insertInto(
                                t.deltas, t.deltasName, t.deltasId, t.deltasDelta, t.deltasAppendedAt, t.deltasFolded)
                        .values(
                                marker(0, String.class),
                                marker(1, String.class),
                                marker(2, Long.class),
                                marker(3, Long.class),
                                inline(UNFOLDED))
                        .onConflict(t.deltasName, t.deltasId)
                        .doNothing(),
                APPEND_TIMEOUT_SECONDS);
        this.stored = new RenderedStatement(ctx -> ctx.select(t.deltasDelta)
                .from(t.deltas)
                .where(t.deltasName.eq(marker(0, String.class)), t.deltasId.eq(marker(1, String.class))));
    }

    /** Whether the counter has a delta not folded yet. */
    boolean hasUnfolded(DSLContext ctx, CounterName counter) {
        return ctx.fetchExists(
                ctx.selectOne().from(t.deltas).where(t.deltasName.eq(counter.value()), t.deltasFolded.eq(UNFOLDED)));
    }

    /**
     * Appends the delta unless its id is taken: empty if appended, else the delta stored under the id. Two statements
     * at most, never repeated here: a row that vanished between them (an old folded delta, purged) leaves nothing
     * appended, a {@link TransientStoreException} the strategy's retry repeats.
     */
    OptionalLong append(DSLContext ctx, CounterName counter, String deltaId, long delta, Instant now) {
        if (append.execute(ctx, counter.value(), deltaId, delta, now.toEpochMilli()) == 1) {
            return OptionalLong.empty();
        }
        OptionalLong stored = this.stored.query(
                ctx,
                rows -> rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty(),
                counter.value(),
                deltaId);
        if (stored.isEmpty()) {
            throw new TransientStoreException(
                    "Appending a delta to counter '" + counter + "' found its id '" + deltaId
                            + "' taken by a row gone before it could be read (purged); nothing was appended",
                    null);
        }
        return stored;
    }

    Map<String, Long> unfolded(DSLContext ctx, CounterName counter, int limit) {
        return ctx.select(t.deltasId, t.deltasDelta)
                .from(t.deltas)
                .where(t.deltasName.eq(counter.value()), t.deltasFolded.eq(UNFOLDED))
                .limit(limit)
                .fetchMap(t.deltasId, t.deltasDelta);
    }

    /** Marks the deltas folded, those still unfolded only: returns how many it marked. */
    int markFolded(DSLContext ctx, CounterName counter, List<String> deltaIds) {
        return ctx.update(t.deltas)
                .set(t.deltasFolded, FOLDED)
                .where(t.deltasName.eq(counter.value()), t.deltasFolded.eq(UNFOLDED), t.deltasId.in(deltaIds))
                .execute();
    }

    /** Deletes folded deltas appended before {@code before}: until then, they recognise late retries. */
    void purgeFolded(DSLContext ctx, CounterName counter, Instant before) {
        ctx.deleteFrom(t.deltas)
                .where(
                        t.deltasName.eq(counter.value()),
                        t.deltasFolded.eq(FOLDED),
                        t.deltasAppendedAt.lt(before.toEpochMilli()))
                .execute();
    }

    int delete(DSLContext ctx, CounterName counter) {
        return ctx.deleteFrom(t.deltas).where(t.deltasName.eq(counter.value())).execute();
    }

    Select<Record1<String>> names() {
        return select(t.deltasName).from(t.deltas);
    }
}
