package dev.counters.jdbc;

import static dev.counters.jdbc.RenderedStatement.marker;

import dev.counters.CounterName;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import dev.counters.spi.IdempotencyKeys.KeyedIncrement;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep4;
import org.jooq.Record;

/** The SQL of {@code counter_keys}: callers' idempotency keys, each with the increment it names. */
final class KeyQueries {

    /** Keys per statement when a batch records or looks up many. */
    static final int KEYS_PER_STATEMENT = 1_000;

    private final CounterTables t;

    /** The statements of one keyed increment, rendered once (see {@link RenderedStatement}). */
    private final RenderedStatement record;

    private final RenderedStatement setValue;

    KeyQueries(CounterTables tables) {
        this.t = tables;
        this.record = new RenderedStatement(ctx -> ctx.insertInto(
                        t.keys, t.keysKey, t.keysName, t.keysDelta, t.keysAppliedAt)
                .values(marker(0, String.class), marker(1, String.class), marker(2, Long.class), marker(3, Long.class))
                .onConflict(t.keysKey)
                .doNothing());
        this.setValue = new RenderedStatement(ctx -> ctx.update(t.keys)
                .set(t.keysValue, marker(0, Long.class))
                .where(t.keysKey.eq(marker(1, String.class))));
    }

    /**
     * Records the key for the increment unless it is recorded; whether this call recorded it. A key inserted by a
     * transaction still in flight makes this wait for it: the database's unique index is the lock.
     */
    boolean record(DSLContext ctx, String key, CounterName counter, long delta, Instant now) {
        return record.execute(ctx, key, counter.value(), delta, now.toEpochMilli()) == 1;
    }

    void setValue(DSLContext ctx, String key, long value) {
        setValue.execute(ctx, value, key);
    }

    Optional<KeyedIncrement> read(DSLContext ctx, String key) {
        return ctx.select(t.keysName, t.keysDelta, t.keysValue)
                .from(t.keys)
                .where(t.keysKey.eq(key))
                .fetchOptional(row -> new KeyedIncrement(
                        CounterName.of(row.value1()),
                        row.value2(),
                        row.value3() == null ? OptionalLong.empty() : OptionalLong.of(row.value3()),
                        false));
    }

    /** The keys among {@code keys} that are recorded, with their increments. */
    Map<String, KeyedDelta> recorded(DSLContext ctx, Collection<String> keys) {
        Map<String, KeyedDelta> recorded = new HashMap<>();
        List<String> all = List.copyOf(keys);
        for (int from = 0; from < all.size(); from += KEYS_PER_STATEMENT) {
            ctx.select(t.keysKey, t.keysName, t.keysDelta)
                    .from(t.keys)
                    .where(t.keysKey.in(all.subList(from, Math.min(all.size(), from + KEYS_PER_STATEMENT))))
                    .forEach(row ->
                            recorded.put(row.value1(), new KeyedDelta(CounterName.of(row.value2()), row.value3())));
        }
        return recorded;
    }

    /**
     * Records keys none of which is recorded yet: a plain insert, so that a key recorded meanwhile by another
     * transaction fails it (a unique violation, reported as rolled back) rather than being skipped unnoticed.
     */
    void recordAll(DSLContext ctx, Map<String, KeyedDelta> keys, Instant now) {
        List<Map.Entry<String, KeyedDelta>> all = List.copyOf(keys.entrySet());
        for (int from = 0; from < all.size(); from += KEYS_PER_STATEMENT) {
            InsertValuesStep4<Record, String, String, Long, Long> insert =
                    ctx.insertInto(t.keys, t.keysKey, t.keysName, t.keysDelta, t.keysAppliedAt);
            for (Map.Entry<String, KeyedDelta> entry :
                    all.subList(from, Math.min(all.size(), from + KEYS_PER_STATEMENT))) {
                insert = insert.values(
                        entry.getKey(),
                        entry.getValue().counter().value(),
                        entry.getValue().delta(),
                        now.toEpochMilli());
            }
            insert.execute();
        }
    }

    /**
     * Deletes up to {@code limit} keys recorded before {@code appliedBefore}, oldest first: a select and a delete by
     * key, since not every database takes a limit on a delete.
     */
    int prune(DSLContext ctx, Instant appliedBefore, int limit) {
        List<String> old = ctx.select(t.keysKey)
                .from(t.keys)
                .where(t.keysAppliedAt.lt(appliedBefore.toEpochMilli()))
                .orderBy(t.keysAppliedAt)
                .limit(limit)
                .fetch(t.keysKey);
        return old.isEmpty()
                ? 0
                : ctx.deleteFrom(t.keys)
                        .where(t.keysKey.in(old), t.keysAppliedAt.lt(appliedBefore.toEpochMilli()))
                        .execute();
    }
}
