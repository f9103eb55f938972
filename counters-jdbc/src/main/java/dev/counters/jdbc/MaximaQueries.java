package dev.counters.jdbc;

import static org.jooq.impl.DSL.greatest;
import static org.jooq.impl.DSL.max;
import static org.jooq.impl.DSL.select;
import static org.jooq.impl.DSL.val;

import dev.counters.CounterName;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.jooq.DSLContext;
import org.jooq.Record1;
import org.jooq.Select;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of the values that only grow: {@code counter_shards} (a sharded counter's shard count) and
 * {@code counter_max_shards} (a monotonic counter's maximum over shards).
 */
final class MaximaQueries {

    private final CounterTables t;

    MaximaQueries(CounterTables tables) {
        this.t = tables;
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

    void raiseShard(DSLContext ctx, CounterName counter, int shard, long value) {
        ctx.insertInto(t.maxShards, t.maxShardsName, t.maxShardsShard, t.maxShardsValue)
                .values(counter.value(), shard, value)
                .onConflict(t.maxShardsName, t.maxShardsShard)
                .doUpdate()
                .set(t.maxShardsValue, greatest(t.maxShardsValue, val(value)))
                .execute();
    }

    OptionalLong maxOfShards(DSLContext ctx, CounterName counter) {
        Long max = ctx.select(max(t.maxShardsValue))
                .from(t.maxShards)
                .where(t.maxShardsName.eq(counter.value()))
                .fetchOne(0, Long.class);
        return max == null ? OptionalLong.empty() : OptionalLong.of(max);
    }

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
