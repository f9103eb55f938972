package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.BufferFullException;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterRule;
import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.MembershipCounter;
import dev.counters.RateDecision.Outcome;
import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import dev.counters.RateLimiter;
import dev.counters.StoreUnavailableException;
import dev.counters.TransientStoreException;
import dev.counters.contract.Concurrently;
import dev.counters.jdbc.testing.FaultInjectingDataSource;
import dev.counters.jdbc.testing.FaultInjectingDataSource.Fault;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;
import dev.counters.spi.RateLimits;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Commits that fail after the database committed (the client cannot tell) and before it did: the buffered and
 * delta-log strategies still count exactly once, and a naive retried {@code value = value + ?} does not.
 */
class AmbiguousCommitTest {

    private static JooqCounterStore faultyStore(JooqStores stores, FaultInjectingDataSource faulty) {
        return JooqCounterStore.builder(faulty).tablePrefix(stores.prefix()).build();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void bufferedFlushesApplyExactlyOnceWhenCommitsFail(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        faulty.failEvery(2, Fault.ALTERNATE);
        String prefix = "amb" + System.nanoTime() + ".";
        List<String> names = IntStream.range(0, 10).mapToObj(i -> prefix + i).toList();
        int threads = 16;
        int perThread = 100_000;
        BufferedSettings settings = BufferedSettings.defaults()
                .withFlushInterval(Duration.ofMillis(5))
                .withFlushThreshold(5_000);
        try (CounterService counters = CounterService.builder(faultyStore(stores, faulty))
                .defaultStrategy(settings)
                .build()) {
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    counters.increment(names.get((thread + i) % names.size()));
                }
            });
            // A fast run can end in a handful of flushes: a few more make sure both kinds of fault were met.
            for (int i = 0; i < 8; i++) {
                counters.increment(prefix + "extra");
                counters.flush().join();
            }
        }
        try (CounterService reader = CounterService.builder(stores.store()).build()) {
            assertThat(reader.get(names).values()).containsOnly((long) threads * perThread / names.size());
            assertThat(reader.get(prefix + "extra")).isEqualTo(8);
        }
        assertThat(faulty.injectedAfterCommit.get())
                .as("ambiguous commits injected")
                .isPositive();
        assertThat(faulty.injectedBeforeCommit.get())
                .as("rolled-back commits injected")
                .isPositive();
        // 1.6 million increments cost a few hundred statements, not 1.6 million.
        assertThat(faulty.statements.get()).isPositive().isLessThan((long) threads * perThread / 1_000);
        System.out.printf(
                "buffered on %s: %d increments, %d statements, %d commits, %d+%d faults injected%n",
                database,
                threads * perThread,
                faulty.statements.get(),
                faulty.commits.get(),
                faulty.injectedAfterCommit.get(),
                faulty.injectedBeforeCommit.get());
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aFlushWhoseCommitOutcomeIsUnknownStaysUnknownWhenTheDatabaseThenGoesAway(TestDatabase database) {
        // Issue 13: a diagnosis read after the failure met the database gone and reported "unavailable", which means
        // "surely not applied"; the retry then found its key recorded, took it for somebody else's, and wrote the
        // deltas again under a new key.
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        JooqCounterStore store = faultyStore(stores, faulty);
        String counter = "gone" + System.nanoTime();
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1)))
                .build()) {
            counters.increment(counter, 5);
            faulty.downAfterStrike = true;
            faulty.failEvery(1, Fault.AFTER_COMMIT); // the flush commits, its reply is lost, then nothing answers
            CompletableFuture<Void> flushed = counters.flush();
            // Back only once the flush attempt has failed, diagnosis and all.
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> faulty.injectedAfterCommit.get() == 1
                            && faulty.down
                            && counters.statistics().get(0).activity().buffer().failedFlushes() >= 1);
            faulty.downAfterStrike = false;
            faulty.failEvery(0, Fault.AFTER_COMMIT);
            faulty.down = false;
            flushed.get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        assertThat(stores.store().get(CounterName.of(counter)))
                .as("applied once")
                .isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void anOverflowDiagnosisThatFailsKeepsTheOriginalFailure(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        JooqCounterStore store = faultyStore(stores, faulty);
        CounterName full = CounterName.of("full" + System.nanoTime());
        stores.store().add(full, "main", Long.MAX_VALUE - 1);
        faulty.downAfterFailedStatement = true; // the batch is refused, then the diagnosis finds nobody
        assertThatThrownBy(() -> store.applyBatch(
                                "k" + System.nanoTime(), "main", Map.of(full, 5L), Map.of(), Instant.now())
                        .applied())
                .isInstanceOf(CounterStoreException.class)
                .isNotInstanceOf(TransientStoreException.class)
                .satisfies(e ->
                        assertThat(e.getSuppressed()).singleElement().isInstanceOf(StoreUnavailableException.class));
        faulty.down = false;
        faulty.downAfterFailedStatement = false;
        assertThatThrownBy(() -> store.applyBatch(
                                "k" + System.nanoTime(), "main", Map.of(full, 5L), Map.of(), Instant.now())
                        .applied())
                .as("with the database there, the diagnosis names the counter")
                .isInstanceOf(CounterOverflowException.class)
                .hasMessageContaining(full.value());
        assertThat(stores.store().get(full)).isEqualTo(Long.MAX_VALUE - 1);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aRateDecisionWhoseReplyIsLostIsNeitherAdmittedNorRefused(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        JooqCounterStore store = faultyStore(stores, faulty);
        String limiter = "lost" + System.nanoTime();
        long now = System.currentTimeMillis() * 1_000_000L;
        assertThat(store.acquire(limiter, "k", 10, 30, now).admitted()).isTrue();

        // The guarded write that decides commits (it takes 10 ns of the key's time), and its reply is lost.
        faulty.failEvery(1, Fault.AFTER_COMMIT);
        assertThatThrownBy(() -> store.acquire(limiter, "k", 10, 30, now))
                .as("taken, but not known to be: never an admission, never a refusal")
                .isInstanceOf(CounterStoreException.class)
                .isNotInstanceOf(TransientStoreException.class);
        assertThat(stores.store().tat(limiter, "k")).hasValue(now + 20);
        assertThatThrownBy(() -> store.acquire(limiter, "fresh", 10, 30, now))
                .as("a new key")
                .isInstanceOf(CounterStoreException.class)
                .isNotInstanceOf(TransientStoreException.class);

        // Lost before it reached the database: nothing was taken, and the client cannot tell that either.
        faulty.failEvery(1, Fault.BEFORE_COMMIT);
        assertThatThrownBy(() -> store.acquire(limiter, "k", 10, 30, now))
                .isInstanceOf(CounterStoreException.class)
                .isNotInstanceOf(TransientStoreException.class);
        assertThat(stores.store().tat(limiter, "k")).hasValue(now + 20);

        faulty.failEvery(0, Fault.AFTER_COMMIT);
        assertThat(store.acquire(limiter, "k", 10, 30, now)).isEqualTo(new RateLimits.Gcra(true, now + 30));
        faulty.failEvery(1, Fault.AFTER_COMMIT);
        assertThatThrownBy(() -> store.acquire(limiter, "k", 10, 30, now))
                .as("a refusal whose guarded write's reply is lost is not known to be one")
                .isInstanceOf(CounterStoreException.class)
                .isNotInstanceOf(TransientStoreException.class);
        assertThat(faulty.injected()).isEqualTo(4);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aLimiterAnswersALostReplyByItsRuleNeitherAllowedNorRefused(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        String name = "lost" + System.nanoTime();
        try (CounterService counters = CounterService.builder(faultyStore(stores, faulty))
                .rateLimit(name, RateLimitRule.of(RateLimit.parse("2/1h")))
                .build()) {
            RateLimiter limiter = counters.rateLimiter(name);
            assertThat(limiter.tryAcquire("k").outcome()).isEqualTo(Outcome.ALLOWED);
            faulty.failEvery(1, Fault.AFTER_COMMIT);
            assertThat(limiter.tryAcquire("k").outcome())
                    .as("the last permit taken, the reply lost")
                    .isEqualTo(Outcome.FAIL_CLOSED);
            assertThat(limiter.tryAcquire("k").outcome())
                    .as("refused by the database, the reply lost")
                    .isEqualTo(Outcome.FAIL_CLOSED);
            faulty.failEvery(0, Fault.AFTER_COMMIT);
            assertThat(limiter.tryAcquire("k").outcome())
                    .as("the lost one did take the last permit")
                    .isEqualTo(Outcome.REFUSED);
            assertThat(limiter.decisions(Outcome.ALLOWED)).isEqualTo(1);
            assertThat(limiter.decisions(Outcome.FAIL_CLOSED)).isEqualTo(2);
        }
        assertThat(faulty.injectedAfterCommit.get()).isEqualTo(2);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aNaiveRetryOfValuePlusDeltaOverCountsUnderTheSameFaults(TestDatabase database) {
        // The negative control: it shows that the injected faults really leave outcomes unknown.
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        faulty.failEvery(3, Fault.AFTER_COMMIT);
        CounterStore store = faultyStore(stores, faulty);
        CounterName counter = CounterName.of("naive" + System.nanoTime());
        for (int i = 0; i < 30; i++) {
            while (true) {
                try {
                    store.add(counter, "main", 1);
                    break;
                } catch (CounterStoreException e) {
                    // "the increment failed, try again": wrong when the failure came after the commit
                }
            }
        }
        assertThat(stores.store().get(counter)).isGreaterThan(30);
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void membershipChangesRepeatedAfterAmbiguousCommitsCountOnce(TestDatabase database) {
        // A change whose commit outcome is unknown fails as "may have been applied", and repeating it is safe: the
        // repeat answers from the rows, so the count moves once per change of membership, whatever the faults.
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        faulty.failEvery(3, Fault.ALTERNATE);
        String counter = "members" + System.nanoTime();
        Set<String> expected = ConcurrentHashMap.newKeySet();
        AtomicLong repeats = new AtomicLong();
        try (CounterService counters = CounterService.builder(faultyStore(stores, faulty))
                .rule(
                        counter + "*",
                        CounterRule.of(ShardedSettings.defaults().withShards(2)).withMembers())
                .build()) {
            MembershipCounter likes = counters.members(counter);
            Concurrently.run(4, thread -> {
                Random random = new Random(thread);
                for (int i = 0; i < 60; i++) {
                    // Each thread toggles members of its own, so it knows what each change must do.
                    String member = "u" + thread + "-" + random.nextInt(5);
                    boolean add = !expected.contains(member);
                    for (int attempt = 1; ; attempt++) {
                        try {
                            boolean changed = add ? likes.add(member) : likes.remove(member);
                            assertThat(changed || attempt > 1)
                                    .as("a first attempt acknowledged changed membership")
                                    .isTrue();
                            break;
                        } catch (CounterStoreException e) {
                            assertThat(e.mayHaveBeenApplied()).as(e.toString()).isTrue();
                            repeats.incrementAndGet();
                        }
                    }
                    if (add) {
                        expected.add(member);
                    } else {
                        expected.remove(member);
                    }
                }
            });
        }
        CounterName name = CounterName.of(counter);
        assertThat(stores.store().members(name, null, 1_000)).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(stores.store().get(name)).as("the count").isEqualTo(expected.size());
        assertThat(repeats.get()).as("changes repeated after a failed commit").isPositive();
        assertThat(faulty.injectedAfterCommit.get()).isPositive();
        assertThat(faulty.injectedBeforeCommit.get()).isPositive();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void deltaLogAppendsRetriedAfterAmbiguousCommitsCountOnce(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        faulty.failEvery(4, Fault.ALTERNATE);
        String counter = "log" + System.nanoTime();
        DeltaLogSettings settings =
                DeltaLogSettings.defaults().withRecountAtDeltas(50).withAppendAttempts(10);
        AtomicLong acknowledged = new AtomicLong();
        AtomicLong unknown = new AtomicLong();
        try (CounterService counters = CounterService.builder(faultyStore(stores, faulty))
                .defaultStrategy(settings)
                .build()) {
            Concurrently.run(4, thread -> {
                for (int i = 0; i < 250; i++) {
                    try {
                        counters.increment(counter, 3);
                        acknowledged.incrementAndGet();
                    } catch (CounterStoreException e) {
                        unknown.incrementAndGet(); // every attempt failed: applied or not, nobody knows
                    }
                }
            });
        }
        // Each acknowledged append counts once; one that gave up may or may not count; nothing counts twice.
        assertThat(stores.store().getAll(List.of(CounterName.of(counter))).get(CounterName.of(counter)))
                .isBetween(3 * acknowledged.get(), 3 * (acknowledged.get() + unknown.get()));
        assertThat(unknown.get()).isLessThan(10);
        assertThat(faulty.injected()).isPositive();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void aRecountThatFailsHalfwayCanBeRunAgain(TestDatabase database) {
        JooqStores stores = JooqStores.shared(database);
        CounterName counter = CounterName.of("recount" + System.nanoTime());
        Instant now = Instant.now();
        stores.store().add(counter, "main", 1_000);
        for (int i = 0; i < 100; i++) {
            stores.store().appendDelta(counter, "d" + i, i, now);
        }
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        JooqCounterStore store = faultyStore(stores, faulty);
        Map<String, Long> unfolded = stores.store().unfoldedDeltas(counter, 1_000);
        assertThat(unfolded).hasSize(100);

        faulty.failEvery(1, Fault.BEFORE_COMMIT); // killed before its commit: nothing happened
        assertThatThrownBy(() -> store.foldDeltas(counter, "main", unfolded.keySet(), 4_950, Instant.EPOCH))
                .isInstanceOf(CounterStoreException.class);
        assertThat(stores.store().getFolded(List.of(counter))).containsEntry(counter, 1_000L);
        assertThat(stores.store().unfoldedDeltas(counter, 1_000)).hasSize(100);

        faulty.failEvery(1, Fault.AFTER_COMMIT); // killed after its commit: all of it happened
        assertThatThrownBy(() -> store.foldDeltas(counter, "main", unfolded.keySet(), 4_950, Instant.EPOCH))
                .isInstanceOf(CounterStoreException.class);
        assertThat(stores.store().getFolded(List.of(counter))).containsEntry(counter, 1_000L + 4_950);
        assertThat(stores.store().getAll(List.of(counter))).containsEntry(counter, 1_000L + 4_950);

        faulty.failEvery(0, Fault.AFTER_COMMIT);
        assertThat(store.foldDeltas(counter, "main", unfolded.keySet(), 4_950, Instant.EPOCH))
                .as("the rerun finds them folded, and writes nothing")
                .isFalse();
        assertThat(stores.store().get(counter)).isEqualTo(1_000 + 4_950);
        assertThat(stores.store().unfoldedDeltas(counter, 1_000)).isEmpty();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void bufferedRidesOutADatabaseOutageWithinItsBound(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.shared(database);
        FaultInjectingDataSource faulty = new FaultInjectingDataSource(database.dataSource());
        String prefix = "outage" + System.nanoTime() + ".";
        BufferedSettings settings = BufferedSettings.defaults()
                .withFlushInterval(Duration.ofMillis(20))
                .withMaxPendingCounters(5);
        try (CounterService counters = CounterService.builder(faultyStore(stores, faulty))
                .defaultStrategy(settings)
                .build()) {
            faulty.down = true;
            for (int i = 0; i < 5; i++) {
                counters.increment(prefix + i, 10);
            }
            assertThatThrownBy(() -> counters.increment(prefix + "new")).isInstanceOf(BufferFullException.class);
            CompletableFuture<Void> durable = counters.incrementDurably(prefix + 0, 1);
            Concurrently.run(4, thread -> {
                for (int i = 0; i < 10_000; i++) {
                    counters.increment(prefix + (i % 5));
                }
            });
            assertThat(durable).isNotDone();
            faulty.down = false;
            durable.get(60, TimeUnit.SECONDS);
        }
        try (CounterService reader = CounterService.builder(stores.store()).build()) {
            long total = reader
                    .get(IntStream.range(0, 5).mapToObj(i -> prefix + i).toList())
                    .values()
                    .stream()
                    .mapToLong(Long::longValue)
                    .sum();
            assertThat(total).isEqualTo(50 + 1 + 40_000);
        }
    }
}
