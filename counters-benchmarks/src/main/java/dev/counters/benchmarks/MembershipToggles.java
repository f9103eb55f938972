package dev.counters.benchmarks;

import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.MembershipCounter;
import dev.counters.jdbc.JooqCounterStore;
import java.util.List;

/** A hot post's likes in a {@link MembershipCounter} of this library, on fresh tables, under one rule. */
final class MembershipToggles implements ToggleWorkload {

    static final String POST = "post.1.likes";

    private final JooqCounterStore store;
    private final CounterRule rule;
    private final CounterService service;
    private final MembershipCounter likes;

    private MembershipToggles(JooqCounterStore store, CounterRule rule) {
        this.store = store;
        this.rule = rule;
        this.service = service(store, rule);
        this.likes = service.members(POST);
    }

    static Opener of(CounterRule rule) {
        return (dataSource, database) -> new MembershipToggles(FreshTables.store(dataSource), rule);
    }

    private static CounterService service(JooqCounterStore store, CounterRule rule) {
        return CounterService.builder(store).rule("post.*.likes", rule).build();
    }

    @Override
    public boolean toggle(String user, boolean like) {
        return like ? likes.add(user) : likes.remove(user);
    }

    @Override
    public void close() {
        service.close();
    }

    /** Read by a new service, as a restarted application would. */
    @Override
    public long count() {
        try (CounterService reader = service(store, rule)) {
            return reader.members(POST).count();
        }
    }

    @Override
    public long members() {
        try (CounterService reader = service(store, rule)) {
            MembershipCounter post = reader.members(POST);
            long members = 0;
            String after = null;
            for (List<String> page; !(page = post.members(after, 10_000)).isEmpty(); after = page.getLast()) {
                members += page.size();
            }
            return members;
        }
    }
}
