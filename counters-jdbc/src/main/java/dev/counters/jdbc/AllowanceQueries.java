package dev.counters.jdbc;

import dev.counters.CounterName;
import dev.counters.spi.Escrow.NodeAllowance;
import java.util.List;
import org.jooq.DSLContext;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/** The SQL of {@code counter_allowances}: which nodes hold an allowance (a node cell) of which bounded counter. */
final class AllowanceQueries {

    private final CounterTables t;

    AllowanceQueries(CounterTables tables) {
        this.t = tables;
    }

    /** Registers the node's allowance of the counter unless registered. */
    void register(DSLContext ctx, String nodeId, CounterName counter) {
        ctx.insertInto(t.allowances, t.allowancesNode, t.allowancesName)
                .values(nodeId, counter.value())
                .onConflict(t.allowancesNode, t.allowancesName)
                .doNothing()
                .execute();
    }

    void remove(DSLContext ctx, String nodeId, CounterName counter) {
        ctx.deleteFrom(t.allowances)
                .where(t.allowancesNode.eq(nodeId), t.allowancesName.eq(counter.value()))
                .execute();
    }

    /** Registrations ordered by node id, then counter name, after {@code after}. */
    List<NodeAllowance> page(DSLContext ctx, @Nullable NodeAllowance after, int limit) {
        return ctx.select(t.allowancesNode, t.allowancesName)
                .from(t.allowances)
                .where(
                        after == null
                                ? DSL.noCondition()
                                : t.allowancesNode
                                        .gt(after.nodeId())
                                        .or(t.allowancesNode
                                                .eq(after.nodeId())
                                                .and(t.allowancesName.gt(
                                                        after.counter().value()))))
                .orderBy(t.allowancesNode, t.allowancesName)
                .limit(limit)
                .fetch(row -> new NodeAllowance(row.value1(), CounterName.of(row.value2())));
    }

    void delete(DSLContext ctx, CounterName counter) {
        ctx.deleteFrom(t.allowances).where(t.allowancesName.eq(counter.value())).execute();
    }
}
