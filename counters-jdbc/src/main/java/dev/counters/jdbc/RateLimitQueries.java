package dev.counters.jdbc;

import static dev.counters.jdbc.RenderedStatement.marker;
import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.row;

import dev.counters.TransientStoreException;
import dev.counters.spi.RateLimits.Gcra;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;
import org.jooq.Condition;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record2;
import org.jooq.Result;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/**
 * The SQL of {@code counter_rate_tat}: GCRA's theoretical arrival time ({@code tat}) of each key of a rate limiter.
 * A decision is one guarded write, its guard {@code GREATEST(tat, now) + cost <= now + burst} checked by the database
 * on the row as it is when written: never a read then a write. PostgreSQL decides in one upsert whatever the key's
 * state. MySQL, MariaDB and H2 update the key first (one statement for a key in use, the hot path), and only when
 * that wrote nothing read it: a key found refused is refused (it was, at that read), an absent one is inserted.
 */
final class RateLimitQueries {

    /** Most keys per statement of {@link #deleteIdle}. */
    static final int KEYS_PER_DELETE = 1_000;

    private final CounterTables t;

    // Values: 0 limiter, 1 key, 2 cost, 3 burst, 4 now (nanoseconds).
    private final RenderedStatement upsert;
    private final RenderedStatement updateReturning;
    private final RenderedStatement updateLastInsertId;
    private final RenderedStatement insert;
    private final RenderedStatement read;

    RateLimitQueries(CounterTables tables) {
        this.t = tables;
        this.upsert =
                new RenderedStatement(ctx -> ctx.insertInto(t.rateTat, t.rateTatLimiter, t.rateTatKey, t.rateTatTat)
                        .values(marker(0, String.class), marker(1, String.class), now().plus(cost()))
                        .onConflict(t.rateTatLimiter, t.rateTatKey)
                        .doUpdate()
                        .set(t.rateTatTat, advanced())
                        .where(fits())
                        .returningResult(t.rateTatTat));
        this.updateReturning = new RenderedStatement(ctx -> ctx.update(t.rateTat)
                .set(t.rateTatTat, advanced())
                .where(keyIs(), fits())
                .returningResult(t.rateTatTat));
        // The new tat comes back in the statement's own reply, as SequenceQueries' reservations do.
        this.updateLastInsertId = new RenderedStatement(ctx -> ctx.update(t.rateTat)
                .set(t.rateTatTat, DSL.field("last_insert_id({0})", Long.class, advanced()))
                .where(keyIs(), fits()));
        this.insert =
                new RenderedStatement(ctx -> ctx.insertInto(t.rateTat, t.rateTatLimiter, t.rateTatKey, t.rateTatTat)
                        .values(marker(0, String.class), marker(1, String.class), now().plus(cost()))
                        .onConflict(t.rateTatLimiter, t.rateTatKey)
                        .doNothing());
        this.read = new RenderedStatement(
                ctx -> ctx.select(t.rateTatTat).from(t.rateTat).where(keyIs()));
    }

    private static Field<Long> cost() {
        return marker(2, Long.class);
    }

    private static Field<Long> now() {
        return marker(4, Long.class);
    }

    private Condition keyIs() {
        return t.rateTatLimiter.eq(marker(0, String.class)).and(t.rateTatKey.eq(marker(1, String.class)));
    }

    private Field<Long> advanced() {
        return greatest(t.rateTatTat, now()).plus(cost());
    }

    /** GCRA's guard: the key's time, advanced by the cost, runs at most the burst ahead of now. */
    private Condition fits() {
        return advanced().le(now().plus(marker(3, Long.class)));
    }

    /** The guard of {@link #fits()}, in Java, on a tat read. */
    private static boolean fits(long tat, long cost, long burst, long now) {
        return Math.max(tat, now) + cost <= now + burst;
    }

    /**
     * Decides a request: every statement is one write or one read of its own, and a decision returns as soon as one
     * statement wrote. So a failure of any statement means nothing was written before it, and one that the database
     * rolled back (a conflict, a lost race to insert the key) means nothing was written at all.
     */
    Gcra acquire(DSLContext ctx, String limiter, String key, long cost, long burst, long now) {
        Object[] values = {limiter, key, cost, burst, now};
        if (ctx.family() == SQLDialect.POSTGRES) {
            OptionalLong admitted = upsert.query(ctx, RateLimitQueries::tat, values);
            if (admitted.isPresent()) {
                return new Gcra(true, admitted.getAsLong());
            }
            // Refused by the row as it was; absent now, it was deleted meanwhile: a full bucket, as at now.
            return new Gcra(false, read(ctx, limiter, key).orElse(now));
        }
        // Twice at most: the key may be inserted, or deleted, between the statements of one round.
        for (int round = 0; round < 2; round++) {
            OptionalLong admitted = ctx.family() == SQLDialect.H2
                    ? updateReturning.query(ctx, RateLimitQueries::tat, values)
                    : updateLastInsertId.updateReturningId(ctx, values);
            if (admitted.isPresent()) {
                return new Gcra(true, admitted.getAsLong());
            }
            OptionalLong found = read(ctx, limiter, key);
            if (found.isPresent()) {
                if (!fits(found.getAsLong(), cost, burst, now)) {
                    return new Gcra(false, found.getAsLong());
                }
            } else if (insert.execute(ctx, values) == 1) {
                return new Gcra(true, now + cost);
            }
        }
        throw new TransientStoreException(
                "Key '" + key + "' of rate limiter '" + limiter + "' was written by others between every statement of"
                        + " this decision; nothing was written",
                null);
    }

    OptionalLong read(DSLContext ctx, String limiter, String key) {
        return read.query(ctx, RateLimitQueries::tat, limiter, key);
    }

    private static OptionalLong tat(ResultSet rows) throws SQLException {
        return rows.next() ? OptionalLong.of(rows.getLong(1)) : OptionalLong.empty();
    }

    boolean delete(DSLContext ctx, String limiter, String key) {
        return ctx.deleteFrom(t.rateTat)
                        .where(t.rateTatLimiter.eq(limiter), t.rateTatKey.eq(key))
                        .execute()
                > 0;
    }

    /**
     * Deletes up to {@code limit} keys whose tat is before {@code before}, earliest first, in pages: a read of a page
     * of keys by the index on tat, then a delete of those keys that repeats the condition, which the database checks
     * on each row as it is when deleted. So a key advanced since the read stays.
     */
    int deleteIdle(DSLContext ctx, long before, int limit) {
        int deleted = 0;
        while (deleted < limit) {
            Result<Record2<String, String>> idle = ctx.select(t.rateTatLimiter, t.rateTatKey)
                    .from(t.rateTat)
                    .where(t.rateTatTat.lt(before))
                    .orderBy(t.rateTatTat)
                    .limit(Math.min(limit - deleted, KEYS_PER_DELETE))
                    .fetch();
            if (idle.isEmpty()) {
                break;
            }
            int page = ctx.deleteFrom(t.rateTat)
                    .where(row(t.rateTatLimiter, t.rateTatKey).in(idle), t.rateTatTat.lt(before))
                    .execute();
            deleted += page;
            if (page == 0 || idle.size() < KEYS_PER_DELETE) {
                break; // none deleted: every key read was advanced meanwhile; a short page: no more idle keys
            }
        }
        return deleted;
    }
}
