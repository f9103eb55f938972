package dev.counters.jdbc;

import static dev.counters.jdbc.RenderedStatement.marker;

import dev.counters.CounterName;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jooq.DSLContext;
import org.jooq.InsertValuesStep2;
import org.jooq.Record;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;

/**
 * The SQL of {@code counter_members}: the members of membership counters, one row each. Statements name many members
 * at once, so that a change of any number of members is a handful of round trips.
 */
final class MemberQueries {

    /** Members per statement, so that no statement grows without bound. */
    static final int MEMBERS_PER_STATEMENT = 1_000;

    private final CounterTables t;
    private final RenderedStatement isMember;

    MemberQueries(CounterTables tables) {
        this.t = tables;
        this.isMember = new RenderedStatement(ctx -> ctx.selectOne()
                .from(t.members)
                .where(t.membersName.eq(marker(0, String.class)), t.membersMember.eq(marker(1, String.class))));
    }

    /**
     * Which of {@code members} (sorted) are members, their rows locked until the transaction ends: a locking read sees
     * the rows as committed now, not an older snapshot, and no other transaction deletes them meanwhile.
     */
    Set<String> lockPresent(DSLContext ctx, CounterName counter, List<String> members) {
        Set<String> present = new HashSet<>();
        for (List<String> chunk : chunks(members)) {
            present.addAll(ctx.select(t.membersMember)
                    .from(t.members)
                    .where(t.membersName.eq(counter.value()), t.membersMember.in(chunk))
                    .orderBy(t.membersMember)
                    .forUpdate()
                    .fetch(t.membersMember));
        }
        return present;
    }

    /**
     * Inserts rows none of which exists: a plain insert, so that a row inserted meanwhile by another transaction fails
     * it (a unique violation, reported as rolled back) rather than being skipped unnoticed, as {@code INSERT IGNORE}
     * would.
     */
    void insert(DSLContext ctx, CounterName counter, List<String> members) {
        for (List<String> chunk : chunks(members)) {
            InsertValuesStep2<Record, String, String> insert =
                    ctx.insertInto(t.members, t.membersName, t.membersMember);
            for (String member : chunk) {
                insert = insert.values(counter.value(), member);
            }
            insert.execute();
        }
    }

    /** Deletes the rows of {@code members}: how many it deleted. */
    int delete(DSLContext ctx, CounterName counter, List<String> members) {
        int deleted = 0;
        for (List<String> chunk : chunks(members)) {
            deleted += ctx.deleteFrom(t.members)
                    .where(t.membersName.eq(counter.value()), t.membersMember.in(chunk))
                    .execute();
        }
        return deleted;
    }

    /** Deletes every member of the counter: how many. */
    int deleteAll(DSLContext ctx, CounterName counter) {
        return ctx.deleteFrom(t.members)
                .where(t.membersName.eq(counter.value()))
                .execute();
    }

    boolean isMember(DSLContext ctx, CounterName counter, String member) {
        return isMember.query(ctx, rows -> rows.next(), counter.value(), member);
    }

    List<String> page(DSLContext ctx, CounterName counter, @Nullable String after, int limit) {
        return ctx.select(t.membersMember)
                .from(t.members)
                .where(t.membersName.eq(counter.value()), after == null ? DSL.noCondition() : t.membersMember.gt(after))
                .orderBy(t.membersMember)
                .limit(limit)
                .fetch(t.membersMember);
    }

    private static List<List<String>> chunks(List<String> members) {
        List<List<String>> chunks = new ArrayList<>();
        for (int from = 0; from < members.size(); from += MEMBERS_PER_STATEMENT) {
            chunks.add(members.subList(from, Math.min(members.size(), from + MEMBERS_PER_STATEMENT)));
        }
        return chunks;
    }
}
