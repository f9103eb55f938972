package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.Counter;
import dev.counters.CounterName;
import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.CountersException;
import dev.counters.IdempotencyKey;
import dev.counters.MembershipCounter;
import dev.counters.StoreUnavailableException;
import dev.counters.TransientStoreException;
import dev.counters.WindowSettings;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Members;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import dev.counters.testing.TestThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What membership counters must do on every store ({@link MembershipCounter}): a count that changes only when
 * membership does, exactly once, under repeats, racing toggles from several nodes, several rules, lost replies and
 * closing; bad members and bad configuration refused with nothing written. Each store runs it through a subclass of
 * a few lines.
 */
public abstract class MembershipContract extends ContractSupport {

    protected MembershipContract(StoreFixture fixture) {
        super(fixture);
    }

    /** Toggles per thread in the concurrency cases. */
    protected int togglesPerThread() {
        return 400;
    }

    static Stream<Arguments> strategies() {
        return Stream.of(
                Arguments.of("atomic", AtomicSettings.defaults()),
                Arguments.of("sharded", ShardedSettings.defaults().withShards(4)),
                Arguments.of(
                        "sharded, cached total",
                        ShardedSettings.defaults().withShards(4).withCachedTotalExpiry(Duration.ofMinutes(5))),
                Arguments.of("node", NodeSettings.defaults()));
    }

    private String name(String local) {
        return prefix() + local;
    }

    /** A service on {@code store} whose counters of this test count members on {@code settings}. */
    private CounterService service(CounterStore store, StrategySettings settings) {
        return CounterService.builder(store)
                .rule(name("*"), CounterRule.of(settings).withMembers())
                .build();
    }

    // ---- one caller ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void theCountChangesOnlyWhenMembershipDoes(String label, StrategySettings settings) {
        try (CounterService counters = service(store(), settings)) {
            MembershipCounter likes = counters.members(name("post.1.likes"));
            assertThat(likes.name()).isEqualTo(CounterName.of(name("post.1.likes")));
            assertThat(likes.add("alice")).isTrue();
            assertThat(likes.add("alice")).as("a repeat").isFalse();
            assertThat(likes.add("bob")).isTrue();
            assertThat(likes.remove("carol")).as("not a member").isFalse();
            assertThat(likes.contains("alice")).isTrue();
            assertThat(likes.contains("carol")).isFalse();
            assertThat(likes.count()).isEqualTo(2);
            assertThat(likes.remove("alice")).isTrue();
            assertThat(likes.remove("alice")).as("a repeat").isFalse();
            assertThat(likes.contains("alice")).isFalse();
            assertThat(likes.count()).isEqualTo(1);
            assertThat(likes.members(null, 10)).containsExactly("bob");
            assertThat(counters.members(name("post.1.likes"))).as("one handle").isSameAs(likes);
            assertThat(counters.members(name("post.2.likes")).count()).isZero();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void repeatsWriteNothing(String label, StrategySettings settings) {
        try (CounterService counters = service(store(), settings)) {
            MembershipCounter likes = counters.members(name("likes"));
            likes.add("alice");
            Map<String, Long> cells = counters.admin().cells(name("likes"));
            for (int i = 0; i < 5; i++) {
                assertThat(likes.add("alice")).isFalse();
                assertThat(likes.remove("bob")).isFalse();
            }
            assertThat(counters.admin().cells(name("likes"))).isEqualTo(cells);
            assertThat(likes.count()).isEqualTo(1);
        }
    }

    @Test
    void membersArePagedThroughOnceEach() {
        try (CounterService counters = service(store(), AtomicSettings.defaults())) {
            MembershipCounter followers = counters.members(name("followers"));
            Set<String> added = new HashSet<>();
            for (int i = 0; i < 25; i++) {
                String member = (i % 2 == 0 ? "user-" : "User_") + i + "!~";
                followers.add(member);
                added.add(member);
            }
            List<String> seen = new ArrayList<>();
            List<Integer> pages = new ArrayList<>();
            String after = null;
            for (List<String> page; !(page = followers.members(after, 10)).isEmpty(); ) {
                pages.add(page.size());
                seen.addAll(page);
                after = page.get(page.size() - 1);
            }
            assertThat(pages).containsExactly(10, 10, 5);
            assertThat(seen).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(added);
            assertThat(followers.members(null, 10_000)).hasSize(25);
            assertThat(followers.count()).isEqualTo(25);
        }
    }

    @Test
    void aMembershipCounterIsACounterThatTakesNoIncrements() {
        String likes = name("likes");
        try (CounterService counters = service(store(), AtomicSettings.defaults())) {
            counters.members(likes).add("alice");
            counters.members(likes).add("bob");
            Counter counter = counters.counter(likes);
            List<Runnable> increments = List.of(
                    () -> counters.increment(likes),
                    () -> counters.increment(likes, 1),
                    () -> counters.incrementAndGet(likes, 1),
                    () -> counters.incrementDurably(likes, 1),
                    () -> counters.increment(likes, 1, IdempotencyKey.of("k1")),
                    () -> counter.increment(-1),
                    () -> counter.incrementAndGet(1, IdempotencyKey.of("k2")),
                    () -> counter.tryIncrement(1),
                    () -> counter.tryIncrement(1, IdempotencyKey.of("k3")));
            for (Runnable increment : increments) {
                assertThatThrownBy(increment::run)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(likes)
                        .hasMessageContaining("add or remove");
            }
            assertThat(counters.get(likes)).isEqualTo(2);
            assertThat(counters.getExact(likes)).isEqualTo(2);
            assertThat(counters.get(List.of(likes))).containsEntry(likes, 2L);
            assertThat(counters.counterNames(null, 10_000)).contains(likes);
            assertThat(counter.strategy()).isEqualTo("atomic");

            counters.delete(likes);
            MembershipCounter set = counters.members(likes);
            assertThat(set.count()).isZero();
            assertThat(set.contains("alice")).as("delete deletes the members").isFalse();
            assertThat(set.members(null, 10)).isEmpty();
            assertThat(set.add("alice")).isTrue();
            assertThat(set.count()).isEqualTo(1);
        }
    }

    // ---- bad input ----

    @Test
    void badMembersAreRefusedAndWriteNothing() {
        String likes = name("likes");
        try (CounterService counters = service(store(), AtomicSettings.defaults())) {
            MembershipCounter set = counters.members(likes);
            Map<String, String> bad = Map.of(
                    "",
                    "1 to 128 characters, was 0",
                    "x".repeat(129),
                    "1 to 128 characters, was 129",
                    "a b",
                    "U+0020 at index 1",
                    "caf\u00e9",
                    "U+00E9 at index 3",
                    "line\n",
                    "U+000A at index 4",
                    "tab\t",
                    "U+0009 at index 3",
                    "\u007f",
                    "U+007F at index 0");
            bad.forEach((member, problem) -> {
                assertThatThrownBy(() -> set.add(member))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(likes)
                        .hasMessageContaining(problem);
                assertThatThrownBy(() -> set.remove(member)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> set.contains(member)).isInstanceOf(IllegalArgumentException.class);
                assertThatThrownBy(() -> set.members(member, 10)).isInstanceOf(IllegalArgumentException.class);
            });
            assertThatThrownBy(() -> set.add(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must not be null");
            assertThatThrownBy(() -> set.members(null, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1 to 10000, was 0");
            assertThatThrownBy(() -> set.members(null, 10_001)).isInstanceOf(IllegalArgumentException.class);
            assertThat(set.add("!" + "x".repeat(126) + "~"))
                    .as("128 characters, the ends of the range")
                    .isTrue();
            assertThat(set.count()).isEqualTo(1);
            assertThat(store().counterNames(prefix(), null, 10)).containsExactly(CounterName.of(likes));
        }
    }

    @Test
    void aCounterNoRuleMakesCountMembersIsRefused() {
        try (CounterService counters = CounterService.builder(store())
                .rule(name("likes.*"), CounterRule.countingMembers())
                .build()) {
            assertThatThrownBy(() -> counters.members(name("views")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(name("views"))
                    .hasMessageContaining("countingMembers()")
                    .hasMessageContaining("members: true");
            assertThatThrownBy(() -> counters.members("bad name")).isInstanceOf(IllegalArgumentException.class);
            assertThat(counters.members(name("likes.1")).add("alice")).isTrue();
        }
        assertThat(store().counterNames(prefix(), null, 10)).containsExactly(CounterName.of(name("likes.1")));
    }

    @Test
    void rulesThatCannotCountMembersAreRefusedAtBuildAndNothingIsWritten() {
        assertThatThrownBy(() -> CounterRule.of(BufferedSettings.defaults()).withMembers())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("buffered strategy cannot count members");
        assertThatThrownBy(() -> CounterService.builder(store())
                        .defaultStrategy(BufferedSettings.defaults())
                        .rule(name("likes.*"), CounterRule.countingMembers())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name("likes.*"))
                .hasMessageContaining("buffered strategy from the default strategy");
        assertThatThrownBy(() -> CounterService.builder(store())
                        .rule(name("*"), CounterRule.of(BufferedSettings.defaults()))
                        .rule(
                                name("likes.*"),
                                CounterRule.of(AtomicSettings.defaults()).withMembers())
                        .build())
                .as("the first pattern declared gives the strategy")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from rule '" + name("*") + "'");
        assertThatThrownBy(() -> CounterService.builder(store())
                        .rule(name("*"), CounterRule.windowed(WindowSettings.of(Duration.ofMinutes(1))))
                        .rule(name("likes.*"), CounterRule.countingMembers())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("windows from rule '" + name("*") + "'");
        assertThatThrownBy(() -> CounterService.builder(store())
                        .rule(name("*"), CounterRule.expiringAfterIdle(Duration.ofHours(1)))
                        .rule(name("likes.*"), CounterRule.countingMembers())
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expire after idling");
        assertThatThrownBy(() -> CounterService.builder(store())
                        .rule(name("likes.*"), CounterRule.countingMembers())
                        .rule(name("likes.old"), CounterRule.expiringAfterIdle(Duration.ofHours(1)))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(name("likes.old"))
                .hasMessageContaining("expire after idling");
        // Rules the build cannot see conflict: a name that a members pattern and a buffered exact rule both meet.
        try (CounterService counters = CounterService.builder(store())
                .rule(name("likes.*"), CounterRule.countingMembers())
                .rule(name("likes.hot"), CounterRule.of(BufferedSettings.defaults()))
                .build()) {
            assertThatThrownBy(() -> counters.members(name("likes.hot")))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("buffered strategy from rule '" + name("likes.hot") + "'");
            assertThatThrownBy(() -> counters.increment(name("likes.hot"))).isInstanceOf(IllegalStateException.class);
        }
        assertThat(store().counterNames(prefix(), null, 10)).isEmpty();
    }

    // ---- many callers, several nodes ----

    /**
     * What the acknowledged answers imply: per member, the adds that said true minus the removes that said true, which
     * must be 1 for a member and 0 for any other; members whose change had an unknown outcome are left out.
     */
    private static final class Tally {

        final Map<String, AtomicInteger> net = new ConcurrentHashMap<>();
        final Set<String> unknown = ConcurrentHashMap.newKeySet();
        final AtomicInteger answers = new AtomicInteger();
        final AtomicInteger changes = new AtomicInteger();

        void toggle(MembershipCounter set, String member, boolean add) {
            try {
                boolean changed = add ? set.add(member) : set.remove(member);
                if (changed) {
                    changes.incrementAndGet();
                    net.computeIfAbsent(set.name() + "/" + member, key -> new AtomicInteger())
                            .addAndGet(add ? 1 : -1);
                }
                answers.incrementAndGet();
            } catch (CountersException e) {
                if (!e.mayHaveBeenApplied()) {
                    throw e;
                }
                unknown.add(set.name() + "/" + member);
            }
        }

        /** Checks {@code set}, read through a fresh service: its count, its members, and each acknowledged answer. */
        void check(MembershipCounter set, List<String> pool) {
            List<String> members = set.members(null, 10_000);
            assertThat(set.count())
                    .as(set.name() + ": the count is the number of members")
                    .isEqualTo(members.size());
            for (String member : pool) {
                String key = set.name() + "/" + member;
                if (unknown.contains(key)) {
                    continue;
                }
                int implied = net.getOrDefault(key, new AtomicInteger()).get();
                assertThat(implied).as(key + ": its answers added it net").isBetween(0, 1);
                assertThat(members.contains(member))
                        .as(key + " is a member as its answers imply")
                        .isEqualTo(implied == 1);
                assertThat(set.contains(member)).isEqualTo(implied == 1);
            }
        }
    }

    private static List<String> pool(int size) {
        return IntStream.range(0, size).mapToObj(i -> "user-" + i).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void racingTogglesOnTwoNodesCountEachChangeOnce(String label, StrategySettings settings) {
        List<String> pool = pool(12);
        List<String> counters = List.of(name("post.1.likes"));
        Tally tally = new Tally();
        try (CounterService one = service(store(), settings);
                CounterService two = service(anotherStore(), settings)) {
            toggleConcurrently(List.of(one, two), counters, pool, tally);
        }
        check(settings, counters, pool, tally);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void racingTogglesThroughTwoRulesOfOneStrategy(String label, StrategySettings settings) {
        List<String> pool = pool(8);
        List<String> counters = List.of(name("likes.1"), name("follows.1"), name("likes.2"));
        Tally tally = new Tally();
        try (CounterService one = twoRules(store(), settings);
                CounterService two = twoRules(anotherStore(), settings)) {
            assertThat(one.statistics()).extracting(s -> s.rule()).contains(name("likes.*"), name("follows.*"));
            toggleConcurrently(List.of(one, two), counters, pool, tally);
            long counted = Stream.of(one, two)
                    .flatMap(service -> service.statistics().stream())
                    .mapToLong(statistics -> statistics.increments())
                    .sum();
            assertThat(counted)
                    .as("each change of membership counts as an increment of its rule")
                    .isEqualTo(tally.changes.get());
        }
        check(settings, counters, pool, tally);
    }

    private CounterService twoRules(CounterStore store, StrategySettings settings) {
        return CounterService.builder(store)
                .rule(name("likes.*"), CounterRule.of(settings).withMembers())
                .rule(name("follows.*"), CounterRule.of(settings).withMembers())
                .build();
    }

    /** Four threads per service toggle random members of random counters, each answer tallied. */
    private void toggleConcurrently(
            List<CounterService> services, List<String> counters, List<String> pool, Tally tally) {
        int threadsPerService = 4;
        Concurrently.run(services.size() * threadsPerService, thread -> {
            CounterService service = services.get(thread % services.size());
            SplittableRandom random = new SplittableRandom(thread);
            for (int i = 0; i < togglesPerThread(); i++) {
                MembershipCounter set = service.members(counters.get(random.nextInt(counters.size())));
                String member = pool.get(random.nextInt(pool.size()));
                boolean add = random.nextBoolean();
                tally.toggle(set, member, add);
            }
        });
        assertThat(tally.answers.get()).isEqualTo(services.size() * threadsPerService * togglesPerThread());
    }

    /** Every counter read by a fresh service: exact, and as the answers imply. */
    private void check(StrategySettings settings, List<String> counters, List<String> pool, Tally tally) {
        try (CounterService reader = service(store(), settings)) {
            for (String counter : counters) {
                tally.check(reader.members(counter), pool);
                assertThat(reader.get(counter))
                        .as("the value is the count")
                        .isEqualTo(reader.members(counter).count());
            }
        }
    }

    // ---- failures ----

    /** Wraps the store under test; its membership transactions fail as {@link #fault} says. */
    private static final class FaultyMembers extends ForwardingCounterStore {

        enum Fault {
            NONE,
            /** Committed, then the reply is lost: the outcome is unknown to the caller. */
            LOST_REPLY,
            /** The next transaction is a deadlock victim (nothing written), then the store works again. */
            TRANSIENT_ONCE,
            /** No connection: nothing written. */
            DOWN
        }

        volatile Fault fault = Fault.NONE;
        /** While set, a transaction waits for it (10 s at most) before it is made: callers queue behind it. */
        volatile @Nullable CountDownLatch hold;

        final AtomicInteger transactions = new AtomicInteger();

        FaultyMembers(CounterStore delegate) {
            super(delegate);
        }

        @Override
        public List<Boolean> changeMembers(CounterName counter, String cell, List<Members.MemberChange> changes) {
            transactions.incrementAndGet();
            CountDownLatch latch = hold;
            if (latch != null) {
                try {
                    latch.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            switch (fault) {
                case LOST_REPLY -> {
                    super.changeMembers(counter, cell, changes);
                    throw new CounterStoreException("the commit's reply was lost (test)", null);
                }
                case TRANSIENT_ONCE -> {
                    fault = Fault.NONE;
                    throw new TransientStoreException("a deadlock victim (test)", null);
                }
                case DOWN -> throw new StoreUnavailableException("the store is down (test)", null);
                default -> {
                    return super.changeMembers(counter, cell, changes);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void aChangeWhoseCommitOutcomeIsUnknownSaysSoAndTheCountStaysExact(String label, StrategySettings settings) {
        FaultyMembers faulty = new FaultyMembers(store());
        try (CounterService counters = service(faulty, settings)) {
            MembershipCounter likes = counters.members(name("likes"));
            faulty.fault = FaultyMembers.Fault.LOST_REPLY;
            assertThatThrownBy(() -> likes.add("alice"))
                    .isInstanceOf(CounterStoreException.class)
                    .hasMessageContaining("alice")
                    .hasMessageContaining(name("likes"))
                    .satisfies(e -> assertThat(((CountersException) e).mayHaveBeenApplied())
                            .isTrue());
            assertThat(faulty.transactions).as("never repeated blindly").hasValue(1);
            assertThat(likes.count()).isEqualTo(1);
            assertThat(likes.contains("alice")).isTrue();

            // Several callers in one batch, or one per shard: each learns that its change may have been applied.
            CountDownLatch hold = new CountDownLatch(1);
            faulty.hold = hold;
            List<Thread> threads = new ArrayList<>();
            Set<String> unknown = ConcurrentHashMap.newKeySet();
            for (int i = 0; i < 6; i++) {
                String member = "fan-" + i;
                threads.add(TestThreads.start(() -> {
                    try {
                        likes.add(member);
                    } catch (CountersException e) {
                        if (e.mayHaveBeenApplied()) {
                            unknown.add(member);
                        }
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> threads.stream().allMatch(thread -> thread.getState() == Thread.State.TIMED_WAITING));
            faulty.hold = null;
            hold.countDown();
            join(threads);
            assertThat(unknown).hasSize(6);

            faulty.fault = FaultyMembers.Fault.NONE;
            assertThat(likes.count()).as("exact: each change committed once").isEqualTo(7);
            assertThat(likes.members(null, 100)).hasSize(7);
            assertThat(likes.add("fan-3"))
                    .as("a repeat answers from the stored state")
                    .isFalse();
            faulty.fault = FaultyMembers.Fault.LOST_REPLY;
            assertThatThrownBy(() -> likes.remove("alice")).isInstanceOf(CounterStoreException.class);
            faulty.fault = FaultyMembers.Fault.NONE;
            assertThat(likes.remove("alice")).isFalse();
            assertThat(likes.count()).isEqualTo(6);
        }
    }

    static Stream<Arguments> oneCellStrategies() {
        return Stream.of(
                Arguments.of("atomic", AtomicSettings.defaults()), Arguments.of("node", NodeSettings.defaults()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("oneCellStrategies")
    void concurrentChangesOfOneCellShareATransaction(String label, StrategySettings settings) {
        FaultyMembers faulty = new FaultyMembers(store());
        try (CounterService counters = service(faulty, settings)) {
            MembershipCounter likes = counters.members(name("likes"));
            CountDownLatch hold = new CountDownLatch(1);
            faulty.hold = hold;
            List<Thread> threads = new ArrayList<>();
            Map<String, Boolean> answers = new ConcurrentHashMap<>();
            for (int i = 0; i < 8; i++) {
                String member = i < 6 ? "fan-" + i : "fan-0"; // two repeats among them
                int caller = i;
                threads.add(TestThreads.start(() -> answers.put(caller + "/" + member, likes.add(member))));
            }
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> threads.stream().allMatch(thread -> thread.getState() == Thread.State.TIMED_WAITING));
            faulty.hold = null;
            hold.countDown();
            join(threads);
            assertThat(faulty.transactions)
                    .as("the first caller's, then one for the seven waiting")
                    .hasValue(2);
            assertThat(answers).hasSize(8);
            assertThat(answers.values().stream().filter(changed -> changed))
                    .as("one answer per member says it changed")
                    .hasSize(6);
            assertThat(likes.count()).isEqualTo(6);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void aFailureThatSurelyWroteNothingIsRetriedOrReportedAsNotApplied(String label, StrategySettings settings) {
        FaultyMembers faulty = new FaultyMembers(store());
        try (CounterService counters = service(faulty, settings)) {
            MembershipCounter likes = counters.members(name("likes"));
            faulty.fault = FaultyMembers.Fault.TRANSIENT_ONCE;
            assertThat(likes.add("alice")).as("retried").isTrue();
            assertThat(faulty.transactions).hasValue(2);
            assertThat(likes.count()).isEqualTo(1);

            faulty.fault = FaultyMembers.Fault.DOWN;
            assertThatThrownBy(() -> likes.add("bob"))
                    .isInstanceOf(StoreUnavailableException.class)
                    .satisfies(e -> assertThat(((CountersException) e).mayHaveBeenApplied())
                            .isFalse());
            faulty.fault = FaultyMembers.Fault.NONE;
            assertThat(likes.contains("bob")).isFalse();
            assertThat(likes.count()).isEqualTo(1);
        }
    }

    // ---- closing ----

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void closingWhileTogglingLeavesTheCountExact(String label, StrategySettings settings) {
        List<String> pool = pool(10);
        Tally tally = new Tally();
        CounterService counters = service(store(), settings);
        MembershipCounter likes = counters.members(name("likes"));
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        AtomicInteger refused = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            SplittableRandom random = new SplittableRandom(t);
            threads.add(TestThreads.start(() -> {
                try {
                    while (!stop.get()) {
                        tally.toggle(likes, pool.get(random.nextInt(pool.size())), random.nextBoolean());
                    }
                } catch (IllegalStateException e) {
                    refused.incrementAndGet(); // closed
                } catch (RuntimeException | Error e) {
                    failures.add(e);
                }
            }));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> tally.answers.get() >= 200 || !failures.isEmpty());
        counters.close();
        try {
            join(threads);
        } finally {
            stop.set(true); // a toggler that never saw the service closed
        }
        assertThat(failures).isEmpty();
        assertThat(refused).as("every toggler saw the service closed").hasValue(4);
        assertThatThrownBy(() -> likes.add("late")).isInstanceOf(IllegalStateException.class);
        check(settings, List.of(name("likes")), pool, tally);
    }

    private static void join(List<Thread> threads) {
        for (Thread thread : threads) {
            try {
                thread.join(Duration.ofSeconds(30).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            assertThat(thread.isAlive()).as(thread + " ended").isFalse();
        }
    }
}
