package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.spi.Holds.KeyedOperation;
import dev.counters.spi.Holds.OperationState;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.Record1;
import org.jooq.Record6;
import org.jooq.SelectJoinStep;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/** The SQL of {@code counter_holds}: keyed changes and holds of bounded counters, under the caller's key. */
final class HoldQueries {

    /** The code of an open hold, {@link OperationState#HELD}: the only state a row leaves. */
    static final short HELD = (short) OperationState.HELD.code();

    private final CounterTables t;

    HoldQueries(CounterTables tables) {
        this.t = tables;
    }

    /**
     * Records the operation under its key unless one is recorded; whether this call recorded it. A key inserted by a
     * transaction still in flight makes this wait for it: the database's unique index is the lock. Every state but
     * {@code HELD} is settled when recorded.
     */
    boolean record(
            DSLContext ctx,
            String key,
            CounterName counter,
            long delta,
            OperationState state,
            @Nullable Instant expiresAt,
            @Nullable Long value,
            Instant now) {
        return ctx.insertInto(
                                t.holds,
                                t.holdsKey,
                                t.holdsName,
                                t.holdsDelta,
                                t.holdsState,
                                t.holdsValue,
                                t.holdsExpiresAt,
                                t.holdsRecordedAt,
                                t.holdsSettledAt)
                        .values(
                                key,
                                counter.value(),
                                delta,
                                (short) state.code(),
                                value,
                                expiresAt == null ? null : expiresAt.toEpochMilli(),
                                now.toEpochMilli(),
                                state == OperationState.HELD ? null : now.toEpochMilli())
                        .onConflict(t.holdsKey)
                        .doNothing()
                        .execute()
                == 1;
    }

    void setValue(DSLContext ctx, String key, long value) {
        ctx.update(t.holds).set(t.holdsValue, value).where(t.holdsKey.eq(key)).execute();
    }

    Optional<KeyedOperation> read(DSLContext ctx, String key) {
        return selectOperation(ctx).where(t.holdsKey.eq(key)).fetchOptional(HoldQueries::operation);
    }

    /** The operation, its row locked until the transaction ends. */
    Optional<KeyedOperation> readForUpdate(DSLContext ctx, String key) {
        return selectOperation(ctx).where(t.holdsKey.eq(key)).forUpdate().fetchOptional(HoldQueries::operation);
    }

    /** Moves an open hold to {@code to}; whether it was open. */
    boolean settle(DSLContext ctx, String key, OperationState to, Instant now) {
        return ctx.update(t.holds)
                        .set(t.holdsState, (short) to.code())
                        .set(t.holdsSettledAt, now.toEpochMilli())
                        .where(t.holdsKey.eq(key), t.holdsState.eq(HELD))
                        .execute()
                == 1;
    }

    /** The deltas of the counter's open holds, their rows locked until the transaction ends. */
    List<Long> openDeltasForUpdate(DSLContext ctx, CounterName counter) {
        return ctx.select(t.holdsDelta)
                .from(t.holds)
                .where(t.holdsName.eq(counter.value()), t.holdsState.eq(HELD))
                .orderBy(t.holdsKey)
                .forUpdate()
                .fetch(Record1::value1);
    }

    List<KeyedOperation> due(DSLContext ctx, @Nullable CounterName counter, Instant now, int limit) {
        return selectOperation(ctx)
                .where(
                        t.holdsState.eq(HELD),
                        t.holdsExpiresAt.le(now.toEpochMilli()),
                        counter == null ? DSL.noCondition() : t.holdsName.eq(counter.value()))
                .orderBy(t.holdsExpiresAt, t.holdsKey)
                .limit(limit)
                .fetch(HoldQueries::operation);
    }

    /**
     * Deletes up to {@code limit} settled operations settled before {@code settledBefore}, oldest first: a select and
     * a delete by key, since not every database takes a limit on a delete. An open hold has no settled_at.
     */
    int prune(DSLContext ctx, Instant settledBefore, int limit) {
        List<String> old = ctx.select(t.holdsKey)
                .from(t.holds)
                .where(t.holdsSettledAt.lt(settledBefore.toEpochMilli()), t.holdsState.ne(HELD))
                .orderBy(t.holdsSettledAt)
                .limit(limit)
                .fetch(t.holdsKey);
        return old.isEmpty()
                ? 0
                : ctx.deleteFrom(t.holds)
                        .where(
                                t.holdsKey.in(old),
                                t.holdsSettledAt.lt(settledBefore.toEpochMilli()),
                                t.holdsState.ne(HELD))
                        .execute();
    }

    void delete(DSLContext ctx, CounterName counter) {
        ctx.deleteFrom(t.holds).where(t.holdsName.eq(counter.value())).execute();
    }

    private SelectJoinStep<Record6<String, String, Long, Short, Long, Long>> selectOperation(DSLContext ctx) {
        return ctx.select(t.holdsKey, t.holdsName, t.holdsDelta, t.holdsState, t.holdsExpiresAt, t.holdsValue)
                .from(t.holds);
    }

    private static KeyedOperation operation(Record6<String, String, Long, Short, Long, Long> row) {
        return new KeyedOperation(
                row.value1(),
                CounterName.of(row.value2()),
                row.value3(),
                OperationState.ofCode(row.value4()),
                row.value5() == null ? null : Instant.ofEpochMilli(row.value5()),
                row.value6() == null ? OptionalLong.empty() : OptionalLong.of(row.value6()),
                false);
    }
}
