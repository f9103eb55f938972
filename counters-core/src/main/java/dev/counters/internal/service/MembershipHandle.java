package dev.counters.internal.service;

import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.CountersException;
import dev.counters.IdempotencyKey;
import dev.counters.MembershipCounter;
import dev.counters.internal.strategy.CountsMembers;
import dev.counters.spi.Members.MemberChange;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A membership counter: its changes go to its strategy ({@link CountsMembers}), its value is read as any counter's,
 * and increments are refused, since they would make the count differ from the number of members.
 */
final class MembershipHandle implements Handle, MembershipCounter {

    static final int MAX_MEMBER_LENGTH = 128;
    static final int MAX_PAGE = 10_000;

    private final CounterName name;
    private final Route route;
    private final CountsMembers members;
    private final Runnable checkOpen;

    MembershipHandle(CounterName name, Route route, CountsMembers members, Runnable checkOpen) {
        this.name = name;
        this.route = route;
        this.members = members;
        this.checkOpen = checkOpen;
    }

    @Override
    public CounterName name() {
        return name;
    }

    @Override
    public String key() {
        return name.value();
    }

    @Override
    public Route route() {
        return route;
    }

    @Override
    public CounterName stored() {
        return name;
    }

    @Override
    public String strategy() {
        return route.strategyName();
    }

    // ---- members ----

    @Override
    public boolean add(String member) {
        return change(member, true);
    }

    @Override
    public boolean remove(String member) {
        return change(member, false);
    }

    private boolean change(String member, boolean add) {
        MemberChange change = new MemberChange(checkMember(member), add);
        checkOpen.run();
        boolean changed;
        try {
            changed = members.change(name, change);
        } catch (CountersException e) {
            if (e.mayHaveBeenApplied()) {
                // On this caller's thread, naming its change: the combined write's failure is shared by its batch.
                throw new CounterStoreException(
                        (add ? "Adding" : "Removing") + " member '" + member + "' " + (add ? "to" : "from")
                                + " counter '" + name + "' may have been applied (the count stays exact either way);"
                                + " repeat it to know: " + e.getMessage(),
                        e);
            }
            throw e;
        }
        if (changed) {
            route.count();
        }
        route.memberChanges().count(add, changed);
        return changed;
    }

    @Override
    public boolean contains(String member) {
        return members.isMember(name, checkMember(member));
    }

    @Override
    public long count() {
        return route.strategy().getExact(name);
    }

    @Override
    public List<String> members(@Nullable String after, int limit) {
        if (after != null) {
            checkMember(after);
        }
        if (limit < 1 || limit > MAX_PAGE) {
            throw new IllegalArgumentException("A page of the members of counter '" + name
                    + "' takes a limit from 1 to " + MAX_PAGE + ", was " + limit);
        }
        return members.members(name, after, limit);
    }

    /** A member: 1 to 128 printable ASCII characters, {@code !} to {@code ~}. */
    private String checkMember(String member) {
        if (member == null) {
            throw new IllegalArgumentException("A member of counter '" + name + "' must not be null");
        }
        if (member.isEmpty() || member.length() > MAX_MEMBER_LENGTH) {
            throw new IllegalArgumentException("A member of counter '" + name + "' has 1 to " + MAX_MEMBER_LENGTH
                    + " characters, was " + member.length());
        }
        for (int i = 0; i < member.length(); i++) {
            char c = member.charAt(i);
            if (c < '!' || c > '~') {
                throw new IllegalArgumentException("A member of counter '" + name + "' is printable ASCII ('!' to"
                        + " '~', no spaces), and has U+" + String.format("%04X", (int) c) + " at index " + i);
            }
        }
        return member;
    }

    // ---- as a counter ----

    private IllegalArgumentException refused() {
        return new IllegalArgumentException("Counter '" + name + "' counts members and takes no increments: its count"
                + " changes only when members change, so add or remove members (CounterService.members(name))");
    }

    @Override
    public void increment(long delta) {
        throw refused();
    }

    @Override
    public void increment(long delta, IdempotencyKey key) {
        throw refused();
    }

    @Override
    public long incrementAndGet(long delta, IdempotencyKey key) {
        throw refused();
    }

    @Override
    public CompletableFuture<Void> incrementDurably(long delta) {
        throw refused();
    }

    @Override
    public long incrementAndGet(long delta) {
        throw refused();
    }

    @Override
    public boolean tryIncrement(long delta) {
        throw refused();
    }

    @Override
    public boolean tryIncrement(long delta, IdempotencyKey key) {
        throw refused();
    }

    @Override
    public long get() {
        return route.strategy().get(name);
    }

    @Override
    public long getExact() {
        return route.strategy().getExact(name);
    }

    @Override
    public void delete() {
        route.strategy().delete(name);
    }

    @Override
    public String toString() {
        return "MembershipCounter[" + name + ", " + route.strategyName() + "]";
    }
}
