package dev.counters;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A set of members and their count, changed together: the users who liked a post, the followers of an account, the
 * voters of a poll. Obtained from {@link CounterService#members(String)}. Thread-safe.
 *
 * <p>The count changes only when membership changes, by exactly one: adding a member twice, or removing one that is
 * not there, writes nothing, whatever the interleaving of calls from any number of threads and nodes. The member's row
 * and the change of the count commit in one transaction, so {@link #count()} always equals the number of members. The
 * count is kept by the rule's strategy (atomic, sharded or node), so a hot set (one viral post) is not one hot row;
 * concurrent changes of one set in one process share a transaction.
 *
 * <p>A member is 1 to 128 printable ASCII characters ({@code !} to {@code ~}: no spaces), compared exactly; a bad one
 * is an {@link IllegalArgumentException} naming the rule it broke, and nothing is written. A change whose commit
 * outcome is unknown fails with a {@link CounterStoreException} whose {@link CountersException#mayHaveBeenApplied()}
 * is true: the count is exact either way, and repeating the call is safe (it then answers from the stored state).
 */
public interface MembershipCounter {

    CounterName name();

    /**
     * Makes {@code member} a member; durable on return.
     *
     * @return true if it was not one (the count went up by one), false if it was (nothing written)
     */
    boolean add(String member);

    /**
     * Makes {@code member} no longer a member; durable on return.
     *
     * @return true if it was one (the count went down by one), false if it was not (nothing written)
     */
    boolean remove(String member);

    /** Whether {@code member} is a member, as stored. */
    boolean contains(String member);

    /** The number of members: exact, the counter's value. */
    long count();

    /**
     * Members in the database's order, starting after {@code after} (null: from the first), at most {@code limit}
     * (1 to 10,000): page through them by passing the last member of a page as the next {@code after}.
     */
    List<String> members(@Nullable String after, int limit);
}
