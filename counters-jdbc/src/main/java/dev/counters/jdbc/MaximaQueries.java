package dev.counters.jdbc;

import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.inline;
import static org.jooq.impl.DSL.max;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;
import static org.jooq.impl.DSL.when;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.Record1;
import org.jooq.Record2;
import org.jooq.Record3;
import org.jooq.Result;
import org.jooq.Select;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the values that only grow: {@code counter_shards} (a sharded counter's shard count) and
 * {@code counter_max_shards} (a monotonic counter's maximum over shards).
 */
final class MaximaQueries {

    private final CounterTables t;
    private final FailoverProtection protection;

    MaximaQueries(CounterTables tables, FailoverProtection protection) {
        this.t = tables;
        this.protection = protection;
    }

    OptionalInt shardCount(DSLContext ctx, CounterName counter) {
        return ctx.select(t.shardsCount)
                .from(t.shards)
                .where(t.shardsName.eq(counter.value()))
                .fetchOptional(t.shardsCount)
                .map(OptionalInt::of)
                .orElse(OptionalInt.empty());
    }

    /** Raises the shard count to at least {@code shards}, then reads it; both in the caller's transaction. */
    int growShardCount(DSLContext ctx, CounterName counter, int shards) {
        ctx.insertInto(t.shards, t.shardsName, t.shardsCount)
                .values(counter.value(), shards)
                .onConflict(t.shardsName)
                .doUpdate()
                .set(t.shardsCount, greatest(t.shardsCount, val(shards)))
                .execute();
        return Objects.requireNonNull(
                ctx.select(t.shardsCount)
                        .from(t.shards)
                        .where(t.shardsName.eq(counter.value()))
                        .fetchSingle(t.shardsCount),
                "a shard count is never null");
    }

    /** Raises a shard, stamped with the live history: its value comes from a cache that knows every value handed out. */
    void raiseShard(DSLContext ctx, CounterName counter, int shard, long value) {
        ctx.insertInto(t.maxShards, t.maxShardsName, t.maxShardsShard, t.maxShardsValue, t.maxShardsHistory)
                .values(val(counter.value()), val(shard), val(value), protection.live)
                .onConflict(t.maxShardsName, t.maxShardsShard)
                .doUpdate()
                .set(t.maxShardsValue, greatest(t.maxShardsValue, val(value)))
                .set(t.maxShardsHistory, protection.live)
                .execute();
    }

    /** The maximum over the counter's shards, and whether a shard was written under another history. */
    record Max(OptionalLong max, boolean stale) {}

    /** One read: the maximum, and whether a shard holds a history other than the live one. */
    Max maxOfShards(DSLContext ctx, CounterName counter) {
        Record2<Long, Integer> row = ctx.select(
                        max(t.maxShardsValue),
                        max(when(t.maxShardsHistory.ne(protection.live), inline(1))
                                .otherwise(inline(0))))
                .from(t.maxShards)
                .where(t.maxShardsName.eq(counter.value()))
                .fetchSingle();
        return new Max(
                row.value1() == null ? OptionalLong.empty() : OptionalLong.of(row.value1()),
                row.value2() != null && row.value2() == 1);
    }

    /**
     * In a transaction: with the counter's shards locked, if one was written under another history, moves every
     * shard ahead by the skip and stamps them all; the maximum, and the skip made (null when none was).
     */
    Skipped skipStale(DSLContext ctx, CounterName counter) {
        Result<Record3<Long, String, String>> shards = ctx.select(t.maxShardsValue, t.maxShardsHistory, protection.live)
                .from(t.maxShards)
                .where(t.maxShardsName.eq(counter.value()))
                .forUpdate()
                .fetch();
        long max = shards.stream().mapToLong(Record3::value1).max().orElse(0);
        Record3<Long, String, String> stale = shards.stream()
                .filter(shard -> FailoverProtection.stale(shard.value2(), shard.value3()))
                .findFirst()
                .orElse(null);
        if (stale == null) {
            return new Skipped(max, null); // a racer skipped it first
        }
        long skipped;
        try {
            skipped = Math.addExact(max, protection.skipAhead);
        } catch (ArithmeticException e) {
            throw new CounterOverflowException(counter, protection.skipAhead);
        }
        ctx.update(t.maxShards)
                .set(t.maxShardsValue, t.maxShardsValue.plus(protection.skipAhead))
                .set(t.maxShardsHistory, stale.value3())
                .where(t.maxShardsName.eq(counter.value()))
                .execute();
        return new Skipped(
                skipped,
                protection.skipAhead == 0
                        ? null
                        : new FailoverProtection.Skip(
                                FailoverProtection.MAXIMUM,
                                counter,
                                Objects.requireNonNull(stale.value2()),
                                stale.value3(),
                                protection.skipAhead,
                                max,
                                skipped));
    }

    record Skipped(long max, FailoverProtection.@Nullable Skip skip) {}

    void delete(DSLContext ctx, CounterName counter) {
        ctx.deleteFrom(t.shards).where(t.shardsName.eq(counter.value())).execute();
        ctx.deleteFrom(t.maxShards).where(t.maxShardsName.eq(counter.value())).execute();
    }

    /** Up to {@code limit} names with a maximum record after {@code after}, in order. */
    List<CounterName> names(DSLContext ctx, @Nullable CounterName after, int limit) {
        return ctx.selectDistinct(t.maxShardsName)
                .from(t.maxShards)
                .where(after == null ? DSL.noCondition() : t.maxShardsName.gt(after.value()))
                .orderBy(t.maxShardsName)
                .limit(limit)
                .fetch(row -> CounterName.of(row.value1()));
    }

    /** Names with a maximum record: monotonic counters have no cell. */
    Select<Record1<String>> names() {
        return select(t.maxShardsName).from(t.maxShards);
    }
}
