package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.spi.Escrow.Bounds;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/** The SQL of {@code counter_bounds}: the bounds a bounded counter's rooms were computed for. */
final class BoundQueries {

    private final CounterTables t;

    BoundQueries(CounterTables tables) {
        this.t = tables;
    }

    /**
     * Records the bounds unless the counter has some; whether this call recorded them. Bounds inserted by a
     * transaction still in flight make this wait for it.
     */
    boolean insert(DSLContext ctx, CounterName counter, Bounds bounds, Instant now) {
        return ctx.insertInto(t.bounds, t.boundsName, t.boundsMin, t.boundsMax, t.boundsBoundAt)
                        .values(counter.value(), bounds.min(), bounds.max(), now.toEpochMilli())
                        .onConflict(t.boundsName)
                        .doNothing()
                        .execute()
                == 1;
    }

    /** A counter's stored bounds, and whether it was sealed. */
    record Stored(Bounds bounds, boolean sealed) {}

    /** The counter's bounds, locked until the transaction ends. */
    Optional<Stored> readForUpdate(DSLContext ctx, CounterName counter) {
        return ctx.select(t.boundsMin, t.boundsMax, t.boundsSealed)
                .from(t.bounds)
                .where(t.boundsName.eq(counter.value()))
                .forUpdate()
                .fetchOptional(row -> new Stored(new Bounds(row.value1(), row.value2()), row.value3() != 0));
    }

    /** Records new bounds; with {@code sealed}, marks the counter sealed (for good). */
    void update(DSLContext ctx, CounterName counter, Bounds bounds, boolean sealed, Instant now) {
        ctx.update(t.bounds)
                .set(t.boundsMin, bounds.min())
                .set(t.boundsMax, bounds.max())
                .set(t.boundsBoundAt, now.toEpochMilli())
                .set(t.boundsSealed, sealed ? (short) 1 : (short) 0)
                .where(t.boundsName.eq(counter.value()))
                .execute();
    }

    List<CounterName> names(DSLContext ctx, @Nullable CounterName after, int limit) {
        return ctx.select(t.boundsName)
                .from(t.bounds)
                .where(after == null ? DSL.noCondition() : t.boundsName.gt(after.value()))
                .orderBy(t.boundsName)
                .limit(limit)
                .fetch(row -> CounterName.of(row.value1()));
    }

    void delete(DSLContext ctx, CounterName counter) {
        ctx.deleteFrom(t.bounds).where(t.boundsName.eq(counter.value())).execute();
    }
}
