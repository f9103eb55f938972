package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.spi.Members.MemberChange;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A strategy that keeps membership counters' counts (atomic, sharded, node): each change is written, with the
 * member's row, to the cell the strategy would write an increment to now, combined with the concurrent changes of
 * that cell in this JVM ({@link MemberCombiner}) and repeated by the strategy's retry. Members arrive validated.
 */
public interface CountsMembers {

    /** Whether {@code change} changed membership; durable on return. */
    boolean change(CounterName name, MemberChange change);

    boolean isMember(CounterName name, String member);

    List<String> members(CounterName name, @Nullable String after, int limit);
}
