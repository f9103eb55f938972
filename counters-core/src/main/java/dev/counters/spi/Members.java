package dev.counters.spi;

import dev.counters.CounterName;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Membership counters ({@link dev.counters.MembershipCounter}): the members of a counter, each a row, and its count,
 * the sum of its cells as for every counter, changed in one transaction. {@link CounterStore#delete} of a counter
 * deletes its members too.
 */
public interface Members {

    /** One change: make {@code member} a member ({@code add}) or not one. */
    record MemberChange(String member, boolean add) {}

    /**
     * In one transaction, in order: each change inserts or deletes its member's row, writing nothing where the row is
     * already as asked; then adds to {@code cell} of the counter (created at 0 if absent) the number of adds that
     * inserted a row minus the number of removes that deleted one, if not 0. Tried once.
     *
     * @return per change, in order, whether it changed membership
     */
    List<Boolean> changeMembers(CounterName counter, String cell, List<MemberChange> changes);

    /** Whether {@code member} is a member of the counter. */
    boolean isMember(CounterName counter, String member);

    /**
     * Members of the counter, in the database's order, starting after {@code after} (null: from the first), at most
     * {@code limit}.
     */
    List<String> members(CounterName counter, @Nullable String after, int limit);
}
