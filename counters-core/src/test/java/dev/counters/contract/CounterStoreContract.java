package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterService;
import dev.counters.spi.CounterStore;
import dev.counters.spi.CounterStore.VersionedValue;
import dev.counters.spi.Escrow;
import dev.counters.spi.Failovers;
import dev.counters.spi.Holds;
import dev.counters.spi.IdempotencyKeys;
import dev.counters.spi.IdempotentBatches;
import dev.counters.spi.IdleCounters;
import dev.counters.spi.Maxima;
import dev.counters.spi.Members;
import dev.counters.spi.Members.MemberChange;
import dev.counters.spi.RateLimits;
import dev.counters.spi.Sequences;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * What every {@link CounterStore} must do, written once. A store's test is a subclass that says how to get the
 * store; the database behind it is real. Each test uses counter names of its own, so one store (and one database
 * schema) can serve a whole test class.
 */
public abstract class CounterStoreContract extends ContractSupport {

    protected CounterStoreContract(StoreFixture fixture) {
        super(fixture);
    }

    /** A counter name that no other test uses. */
    protected CounterName name(String suffix) {
        return CounterName.of(prefix() + suffix);
    }

    // ---- primitive operations ----

    @Test
    void unknownCounterReadsZero() {
        assertThat(store().get(name("never"))).isZero();
        assertThat(store().getAll(List.of(name("never")))).isEmpty();
    }

    @Test
    void addCreatesThenAccumulates() {
        CounterName views = name("views");
        store().add(views, "main", 5);
        store().add(views, "main", 7);
        store().add(views, "main", -2);
        assertThat(store().get(views)).isEqualTo(10);
    }

    @Test
    void totalIsSumOfCells() {
        CounterName likes = name("likes");
        store().add(likes, "s0", 3);
        store().add(likes, "s1", 4);
        store().add(likes, "s1", 10);
        assertThat(store().get(likes)).isEqualTo(17);
    }

    @Test
    void addAndGetReturnsTotalIncludingTheDelta() {
        CounterName views = name("views");
        store().add(views, "s0", 100);
        assertThat(store().addAndGet(views, "main", 5)).isEqualTo(105);
        assertThat(store().addAndGet(views, "main", -10)).isEqualTo(95);
    }

    @Test
    void getAllReadsManyCountersAndOmitsUnknownOnes() {
        CounterName a = name("a");
        CounterName b = name("b");
        store().add(a, "main", 1);
        store().add(b, "s0", 2);
        store().add(b, "s1", 3);
        assertThat(store().getAll(List.of(a, b, name("unknown"))))
                .containsExactlyInAnyOrderEntriesOf(Map.of(a, 1L, b, 5L));
    }

    @Test
    void deleteRemovesEveryCell() {
        CounterName views = name("views");
        store().add(views, "s0", 1);
        store().add(views, "s1", 1);
        assertThat(store().delete(views)).isTrue();
        assertThat(store().get(views)).isZero();
        assertThat(store().delete(views)).isFalse();
    }

    @Test
    void namesAreCaseSensitiveAndStoredVerbatim() {
        CounterName lower = name("views");
        CounterName upper = name("VIEWS");
        CounterName punctuated = name("a.b_c-d:e");
        store().add(lower, "main", 1);
        store().add(upper, "main", 2);
        store().add(punctuated, "main", 3);
        assertThat(store().get(lower)).isEqualTo(1);
        assertThat(store().get(upper)).isEqualTo(2);
        assertThat(store().get(punctuated)).isEqualTo(3);
    }

    @Test
    void longestNameIsStored() {
        CounterName longest = CounterName.of(prefix() + "x".repeat(CounterName.MAX_LENGTH - prefix().length()));
        store().add(longest, "main", 42);
        assertThat(store().get(longest)).isEqualTo(42);
    }

    @Test
    void overflowIsRefusedAndWritesNothing() {
        CounterName big = name("big");
        store().add(big, "main", Long.MAX_VALUE - 1);
        assertThatThrownBy(() -> store().add(big, "main", 2))
                .isInstanceOf(CounterOverflowException.class)
                .hasMessageContaining(big.value());
        assertThatThrownBy(() -> store().addAndGet(big, "main", 2)).isInstanceOf(CounterOverflowException.class);
        assertThat(store().get(big)).isEqualTo(Long.MAX_VALUE - 1);

        CounterName small = name("small");
        store().add(small, "main", Long.MIN_VALUE + 1);
        assertThatThrownBy(() -> store().add(small, "main", -2)).isInstanceOf(CounterOverflowException.class);
        assertThat(store().get(small)).isEqualTo(Long.MIN_VALUE + 1);
    }

    @Test
    void totalOutsideTheLongRangeIsReportedNotWrapped() {
        CounterName huge = name("huge");
        store().add(huge, "s0", Long.MAX_VALUE);
        store().add(huge, "s1", 1);
        assertThatThrownBy(() -> store().get(huge)).isInstanceOf(CounterOverflowException.class);
    }

    @Test
    void anotherInstanceSeesTheSameData() {
        CounterName shared = name("shared");
        store().add(shared, "main", 3);
        anotherStore().add(shared, "main", 4);
        assertThat(store().get(shared)).isEqualTo(7);
        assertThat(anotherStore().get(shared)).isEqualTo(7);
    }

    // ---- versioned compare-and-set ----

    @Test
    void readShowsValueAndAVersionThatGrowsWithEveryWrite() {
        CounterName views = name("views");
        assertThat(store().read(views, "main")).isEmpty();
        store().add(views, "main", 5);
        assertThat(store().read(views, "main")).contains(new VersionedValue(5, 1));
        store().add(views, "main", 2);
        assertThat(store().read(views, "main")).contains(new VersionedValue(7, 2));
        assertThat(store().compareAndSet(views, "main", new VersionedValue(7, 2), 100))
                .isTrue();
        assertThat(store().read(views, "main")).contains(new VersionedValue(100, 3));
    }

    @Test
    void compareAndSetCreatesOnlyAnAbsentCellAndRefusesStaleVersions() {
        CounterName likes = name("likes");
        assertThat(store().compareAndSet(likes, "main", null, 10)).isTrue();
        assertThat(store().compareAndSet(likes, "main", null, 99)).isFalse();
        assertThat(store().compareAndSet(likes, "main", new VersionedValue(10, 2), 99))
                .isFalse();
        assertThat(store().read(likes, "main")).contains(new VersionedValue(10, 1));
        assertThat(store().compareAndSet(likes, "main", new VersionedValue(10, 1), 11))
                .isTrue();
        assertThat(store().compareAndSet(likes, "main", new VersionedValue(10, 1), 12))
                .isFalse();
        assertThat(store().get(likes)).isEqualTo(11);
    }

    /** A deleted counter written again starts over at version 1: the version alone would take it for the old one. */
    @Test
    void compareAndSetRefusesACellAtTheExpectedVersionWithAnotherValue() {
        CounterName reset = name("reset");
        store().add(reset, "main", 40);
        store().add(reset, "main", 2);
        VersionedValue remembered = store().read(reset, "main").orElseThrow();
        store().delete(reset);
        store().add(reset, "main", 1);
        store().add(reset, "main", 1);
        assertThat(store().read(reset, "main")).contains(new VersionedValue(2, remembered.version()));
        assertThat(store().compareAndSet(reset, "main", remembered, 43)).isFalse();
        assertThat(store().get(reset)).isEqualTo(2);
    }

    @Test
    void compareAndSetLoopsFromManyThreadsAreExact() {
        CounterName contended = name("contended");
        int threads = 8;
        int perThread = 200;
        Concurrently.run(threads, thread -> {
            for (int i = 0; i < perThread; i++) {
                while (true) {
                    VersionedValue current = store().read(contended, "main").orElse(null);
                    long value = current == null ? 0 : current.value();
                    if (store().compareAndSet(contended, "main", current, value + 1)) {
                        break;
                    }
                }
            }
        });
        assertThat(store().get(contended)).isEqualTo((long) threads * perThread);
    }

    @Test
    void counterNamesPageThroughEveryStoredCounterOnce() {
        List<CounterName> mine =
                List.of(name("listed.cell"), name("listed.delta"), name("listed.max"), name("listed.gone"));
        store().add(mine.get(0), "main", 1);
        deltaLog(store()).appendDelta(mine.get(1), "d1", 2, Instant.now());
        maxima(store()).raiseShard(mine.get(2), 0, 3);
        store().add(mine.get(3), "main", 4);
        store().delete(mine.get(3));

        List<CounterName> all = new ArrayList<>();
        CounterName after = null;
        for (List<CounterName> page;
                !(page = store().counterNames("", after, 7)).isEmpty();
                after = page.get(page.size() - 1)) {
            assertThat(page).hasSizeLessThanOrEqualTo(7);
            all.addAll(page);
        }
        assertThat(all).doesNotHaveDuplicates().containsAll(mine.subList(0, 3)).doesNotContain(mine.get(3));
    }

    @Test
    void cellsListsEveryCellOfOneCounter() {
        CounterName split = name("split");
        store().add(split, "s0", 1);
        store().add(split, "s3", 3);
        store().add(name("other"), "s0", 100);
        assertThat(store().cells(split)).containsExactlyInAnyOrderEntriesOf(Map.of("s0", 1L, "s3", 3L));
        assertThat(store().cells(name("none"))).isEmpty();
    }

    // ---- shard counts ----

    @Test
    void shardCountOnlyGrows() {
        CounterName sharded = name("sharded");
        assertThat(shardCounts(store()).shardCount(sharded)).isEmpty();
        assertThat(shardCounts(store()).growShardCount(sharded, 4)).isEqualTo(4);
        assertThat(shardCounts(store()).growShardCount(sharded, 2)).isEqualTo(4);
        assertThat(shardCounts(store()).growShardCount(sharded, 16)).isEqualTo(16);
        assertThat(shardCounts(anotherStore()).shardCount(sharded)).hasValue(16);
        store().add(sharded, "s0", 1);
        store().delete(sharded);
        assertThat(shardCounts(store()).shardCount(sharded)).isEmpty();
    }

    @Test
    void concurrentGrowthKeepsTheLargest() {
        CounterName sharded = name("grown");
        Concurrently.run(8, thread -> {
            for (int i = 1; i <= 64; i++) {
                int shards = thread % 2 == 0 ? i : 65 - i;
                retried(() -> shardCounts(store()).growShardCount(sharded, shards));
            }
        });
        assertThat(shardCounts(store()).shardCount(sharded)).hasValue(64);
    }

    @Test
    void namesByPrefixAreOnlyThoseThatStartWithItPageByPage() {
        for (String suffix : List.of("p_x.1", "p_x.2", "p_x.3", "pyx.4", "p_x", "p_y.5")) {
            store().add(name(suffix), "main", 1);
        }
        String prefix = prefix() + "p_x.";
        assertThat(store().counterNames(prefix, null, 10))
                .as("'_' is no wildcard")
                .containsExactly(name("p_x.1"), name("p_x.2"), name("p_x.3"));
        List<CounterName> first = store().counterNames(prefix, null, 2);
        assertThat(first).containsExactly(name("p_x.1"), name("p_x.2"));
        assertThat(store().counterNames(prefix, first.get(first.size() - 1), 2)).containsExactly(name("p_x.3"));
    }

    // ---- idle counters ----

    private static IdleCounters idle(CounterStore store) {
        return store.capability(IdleCounters.class).orElseThrow();
    }

    @Test
    void anIdleCounterIsDeletedOnlyIfNoCellChangedOrAppeared() {
        CounterName quiet = name("quiet");
        CounterName busy = name("busy");
        CounterName grown = name("grown");
        for (CounterName counter : List.of(quiet, busy, grown)) {
            store().add(counter, "s0", 1);
            store().add(counter, "s1", 2);
        }
        Map<CounterName, Map<String, Long>> seen =
                idle(store()).cellVersions(List.of(quiet, busy, grown, name("never")));
        assertThat(seen).containsOnlyKeys(quiet, busy, grown);
        assertThat(seen.get(quiet)).containsOnlyKeys("s0", "s1");
        store().add(busy, "s1", 5); // written after the look
        store().add(grown, "s2", 7); // a new cell after the look

        assertThat(idle(anotherStore()).deleteIfUnchanged(quiet, seen.get(quiet)))
                .isTrue();
        assertThat(idle(store()).deleteIfUnchanged(busy, seen.get(busy))).isFalse();
        assertThat(idle(store()).deleteIfUnchanged(grown, seen.get(grown))).isFalse();
        assertThat(store().getAll(List.of(quiet, busy, grown)))
                .containsExactlyInAnyOrderEntriesOf(Map.of(busy, 8L, grown, 10L));
        assertThat(idle(store()).deleteIfUnchanged(quiet, seen.get(quiet)))
                .as("gone already")
                .isFalse();
    }

    @Test
    void aCounterWithUnfoldedDeltasIsNotIdle() {
        CounterName logged = name("logged");
        store().add(logged, "main", 1);
        deltaLog(store()).appendDelta(logged, "d1", 5, Instant.parse("2026-01-01T00:00:00Z"));
        Map<String, Long> seen = idle(store()).cellVersions(List.of(logged)).get(logged);
        assertThat(idle(store()).deleteIfUnchanged(logged, seen)).isFalse();
        assertThat(store().getAll(List.of(logged))).containsEntry(logged, 6L);
    }

    // ---- batches with an idempotency key ----

    @Test
    void batchIsAppliedOnceWithItsKey() {
        CounterName a = name("a");
        CounterName b = name("b");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        String key = prefix() + "flush-1";
        assertThat(applied(store(), key, "main", Map.of(a, 3L, b, 4L), now)).isTrue();
        assertThat(applied(anotherStore(), key, "main", Map.of(a, 3L, b, 4L), now))
                .as("a retry")
                .isFalse();
        assertThat(applied(store(), prefix() + "flush-2", "main", Map.of(a, 10L), now))
                .isTrue();
        assertThat(store().getAll(List.of(a, b))).containsExactlyInAnyOrderEntriesOf(Map.of(a, 13L, b, 4L));
        assertThat(applied(store(), prefix() + "flush-3", "main", Map.of(), now))
                .isTrue();
    }

    /** A flush of many counters: more rows than one statement carries, half of them new, applied once. */
    @Test
    void aBatchOfThousandsOfCountersIsAppliedOnceWithItsKey() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        Map<CounterName, Long> deltas = new java.util.HashMap<>();
        for (int i = 0; i < 2_500; i++) {
            CounterName counter = name("many." + i);
            if (i % 2 == 0) {
                store().add(counter, "main", 1_000);
            }
            deltas.put(counter, i % 3 == 0 ? -(long) i : (long) i);
        }
        assertThat(applied(store(), prefix() + "many", "main", deltas, now)).isTrue();
        assertThat(applied(anotherStore(), prefix() + "many", "main", deltas, now))
                .as("a retry")
                .isFalse();
        Map<CounterName, Long> stored = store().getAll(deltas.keySet());
        deltas.forEach((counter, delta) -> {
            int i = Integer.parseInt(counter.value().substring(counter.value().lastIndexOf('.') + 1));
            assertThat(stored.get(counter)).as(counter.value()).isEqualTo((i % 2 == 0 ? 1_000 : 0) + delta);
        });
    }

    @Test
    void concurrentRetriesOfOneBatchApplyItOnce() {
        CounterName counter = name("retried");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        java.util.concurrent.atomic.AtomicInteger applied = new java.util.concurrent.atomic.AtomicInteger();
        Concurrently.run(8, thread -> {
            CounterStore mine = thread % 2 == 0 ? store() : anotherStore();
            if (retried(() -> applied(mine, prefix() + "same", "main", Map.of(counter, 5L), now))) {
                applied.incrementAndGet();
            }
        });
        assertThat(applied).hasValue(1);
        assertThat(store().get(counter)).isEqualTo(5);
    }

    @Test
    void batchWithAnOverflowWritesNothingAndNamesTheCounter() {
        CounterName full = name("full");
        CounterName fine = name("fine");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        store().add(full, "main", Long.MAX_VALUE - 1);
        store().add(fine, "main", 1);
        assertThatThrownBy(() -> applied(store(), prefix() + "k", "main", Map.of(fine, 1L, full, 5L), now))
                .isInstanceOf(CounterOverflowException.class)
                .hasMessageContaining(full.value());
        assertThat(store().getAll(List.of(full, fine)))
                .containsExactlyInAnyOrderEntriesOf(Map.of(full, Long.MAX_VALUE - 1, fine, 1L));
        assertThat(applied(store(), prefix() + "k", "main", Map.of(fine, 1L), now))
                .as("key not recorded")
                .isTrue();
        assertThat(store().get(fine)).isEqualTo(2);
    }

    // ---- issue 38: reading past batches in flight ----

    @Test
    void aReadWithBatchesAddsThoseWhoseKeyItDoesNotFind() {
        CounterName stored = name("with-batches");
        CounterName fresh = name("with-batches-fresh");
        CounterName other = name("with-batches-other");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        store().add(stored, "main", 10);
        assertThat(applied(store(), prefix() + "recorded", "main.1", Map.of(stored, 5L), now))
                .isTrue();
        Map<String, Map<CounterName, Long>> inFlight = Map.of(
                prefix() + "recorded", Map.of(stored, 5L),
                prefix() + "pending", Map.of(stored, 7L, fresh, 3L, other, 100L));
        assertThat(batches(store()).getAllWithBatches(List.of(stored, fresh), inFlight))
                .as("the recorded batch is in the store already; the pending one is added, for the counters asked")
                .containsExactlyInAnyOrderEntriesOf(Map.of(stored, 22L, fresh, 3L));
        assertThat(batches(store()).getAllWithBatches(List.of(stored, fresh), Map.of()))
                .containsExactlyInAnyOrderEntriesOf(Map.of(stored, 15L));
    }

    @Test
    void aBatchThatCommitsDuringReadsWithItIsCountedOnceByEach() throws Exception {
        CounterName counter = name("read-during-commit");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        for (int batch = 1; batch <= 20; batch++) {
            String key = prefix() + "during-" + batch;
            Map<String, Map<CounterName, Long>> inFlight = Map.of(key, Map.of(counter, 1L));
            long expected = batch;
            String cell = "main." + (batch % 3);
            AtomicBoolean committed = new AtomicBoolean();
            List<Long> wrong = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger reads = new AtomicInteger();
            Concurrently.run(3, thread -> {
                if (thread == 0) {
                    assertThat(applied(anotherStore(), key, cell, Map.of(counter, 1L), now))
                            .isTrue();
                    committed.set(true);
                    return;
                }
                boolean last = false;
                while (!last) {
                    last = committed.get(); // one more read once the batch is surely in
                    long value = batches(store())
                            .getAllWithBatches(List.of(counter), inFlight)
                            .getOrDefault(counter, 0L);
                    reads.incrementAndGet();
                    if (value != expected) {
                        wrong.add(value);
                    }
                }
            });
            assertThat(wrong)
                    .as(
                            "every read of batch %d counts it once, before, during and after its commit (%d reads)",
                            batch, reads.get())
                    .isEmpty();
        }
    }

    @Test
    void prunedKeysAreForgotten() {
        CounterName counter = name("pruned");
        Instant old = Instant.parse("2020-01-01T00:00:00Z");
        assertThat(applied(store(), prefix() + "old", "main", Map.of(counter, 1L), old))
                .isTrue();
        assertThat(batches(store()).pruneBatchKeys(old.plusSeconds(1))).isGreaterThanOrEqualTo(1);
        assertThat(applied(store(), prefix() + "old", "main", Map.of(counter, 1L), old))
                .isTrue();
        assertThat(store().get(counter)).isEqualTo(2);
    }

    /** Applies a batch without keyed increments: whether it was applied. */
    private static boolean applied(
            CounterStore store, String key, String cell, Map<CounterName, Long> deltas, Instant now) {
        return batches(store).applyBatch(key, cell, deltas, Map.of(), now).applied();
    }

    // ---- idempotency keys ----

    private static IdempotencyKeys keys(CounterStore store) {
        return store.capability(IdempotencyKeys.class).orElseThrow();
    }

    /** The write of a keyed increment: an add to {@code main}, returning the counter's value after it. */
    private static IdempotencyKeys.KeyedWrite addToMain(CounterName counter, long delta) {
        return transaction -> OptionalLong.of(transaction.addAndGet(counter, "main", delta));
    }

    @Test
    void aKeyedIncrementIsAppliedOnceAndARepeatReturnsWhatTheFirstRecorded() {
        CounterName counter = name("keyed");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        String key = prefix() + "request-1";
        IdempotencyKeys.KeyedIncrement first = keys(store()).applyOnce(key, counter, 5, now, addToMain(counter, 5));
        assertThat(first).isEqualTo(new IdempotencyKeys.KeyedIncrement(counter, 5, OptionalLong.of(5), true));
        store().add(counter, "main", 100);
        IdempotencyKeys.KeyedIncrement repeat =
                keys(anotherStore()).applyOnce(key, counter, 5, now, addToMain(counter, 5));
        assertThat(repeat)
                .as("recorded with the first call's value; nothing written")
                .isEqualTo(new IdempotencyKeys.KeyedIncrement(counter, 5, OptionalLong.of(5), false));
        assertThat(store().get(counter)).isEqualTo(105);
        IdempotencyKeys.KeyedIncrement misuse =
                keys(store()).applyOnce(key, name("other"), 7, now, addToMain(name("other"), 7));
        assertThat(misuse.counter()).as("what the key was recorded with").isEqualTo(counter);
        assertThat(misuse.appliedNow()).isFalse();
        assertThat(store().get(name("other"))).isZero();
    }

    @Test
    void aKeyedWriteThatFailsRecordsNoKey() {
        CounterName counter = name("keyed-failing");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        String key = prefix() + "request-failing";
        assertThatThrownBy(() -> keys(store()).applyOnce(key, counter, 5, now, transaction -> {
                    transaction.add(counter, "main", 5);
                    throw new IllegalStateException("the write fails after its add (test)");
                }))
                .hasMessageContaining("(test)");
        assertThat(store().get(counter)).as("rolled back with the key").isZero();
        assertThat(keys(store())
                        .applyOnce(key, counter, 5, now, addToMain(counter, 5))
                        .appliedNow())
                .isTrue();
        assertThat(store().get(counter)).isEqualTo(5);
    }

    @Test
    void concurrentRepeatsOfOneKeyApplyItOnce() {
        CounterName counter = name("keyed-concurrent");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        java.util.concurrent.atomic.AtomicInteger applied = new java.util.concurrent.atomic.AtomicInteger();
        Concurrently.run(8, thread -> {
            CounterStore mine = thread % 2 == 0 ? store() : anotherStore();
            if (retried(() -> keys(mine)
                    .applyOnce(prefix() + "same-key", counter, 5, now, addToMain(counter, 5))
                    .appliedNow())) {
                applied.incrementAndGet();
            }
        });
        assertThat(applied).hasValue(1);
        assertThat(store().get(counter)).isEqualTo(5);
    }

    @Test
    void aBatchLeavesOutTheDeltasOfKeysRecordedBeforeAndReportsThem() {
        CounterName counter = name("keyed-batch");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        String before = prefix() + "batch-key-before";
        String fresh = prefix() + "batch-key-fresh";
        keys(store()).applyOnce(before, counter, 5, now, addToMain(counter, 5));
        Map<String, IdempotencyKeys.KeyedDelta> keyed = Map.of(
                before, new IdempotencyKeys.KeyedDelta(counter, 5), fresh, new IdempotencyKeys.KeyedDelta(counter, 7));
        IdempotentBatches.AppliedBatch result =
                batches(store()).applyBatch(prefix() + "keyed-flush", "main", Map.of(counter, 5L + 7 + 1), keyed, now);
        assertThat(result.applied()).isTrue();
        assertThat(result.repeatedKeys()).containsOnlyKeys(before);
        assertThat(store().get(counter)).as("5 once, 7 and an unkeyed 1").isEqualTo(13);
        IdempotentBatches.AppliedBatch repeat = batches(anotherStore())
                .applyBatch(
                        prefix() + "keyed-flush-2",
                        "main",
                        Map.of(counter, 7L),
                        Map.of(fresh, new IdempotencyKeys.KeyedDelta(counter, 7)),
                        now);
        assertThat(repeat.repeatedKeys()).as("recorded by the batch").containsOnlyKeys(fresh);
        assertThat(store().get(counter)).isEqualTo(13);
    }

    @Test
    void keysArePrunedOldestFirstInBoundedBatches() {
        CounterName counter = name("keyed-old");
        Instant old = Instant.parse("2001-01-01T00:00:00Z");
        for (int i = 0; i < 3; i++) {
            keys(store()).applyOnce(prefix() + "old-key-" + i, counter, 1, old.plusSeconds(i), addToMain(counter, 1));
        }
        assertThat(keys(store()).pruneKeys(old.plusSeconds(3), 2)).isEqualTo(2);
        assertThat(keys(store())
                        .applyOnce(prefix() + "old-key-2", counter, 1, old, addToMain(counter, 1))
                        .appliedNow())
                .as("the newest is kept")
                .isFalse();
        assertThat(keys(store()).pruneKeys(old.plusSeconds(3), 2)).isEqualTo(1);
        assertThat(keys(store())
                        .applyOnce(prefix() + "old-key-0", counter, 1, old, addToMain(counter, 1))
                        .appliedNow())
                .as("forgotten, so applied again")
                .isTrue();
        assertThat(store().get(counter)).isEqualTo(4);
    }

    // ---- delta log ----

    /** The strategy's fold: every unfolded delta, summed here. */
    private static boolean foldAll(CounterStore store, CounterName counter, Instant purgeBefore) {
        Map<String, Long> deltas = deltaLog(store).unfoldedDeltas(counter, 100_000);
        long sum = deltas.values().stream().mapToLong(Long::longValue).sum();
        return deltaLog(store).foldDeltas(counter, "main", deltas.keySet(), sum, purgeBefore);
    }

    @Test
    void deltasCountUntilFoldedAndAppendingAnIdTwiceWritesOnceAndReportsWhatIsStored() {
        CounterName counter = name("log");
        Instant first = Instant.parse("2026-01-01T00:00:00Z");
        store().add(counter, "main", 100);
        assertThat(deltaLog(store()).appendDelta(counter, "id-1", 5, first))
                .as("appended")
                .isEmpty();
        assertThat(deltaLog(anotherStore()).appendDelta(counter, "id-1", 5, first))
                .as("a retry")
                .hasValue(5);
        assertThat(deltaLog(store()).appendDelta(counter, "id-1", 9, first))
                .as("another delta, same id: nothing written")
                .hasValue(5);
        assertThat(deltaLog(store()).appendDelta(counter, "id-2", -2, first.plusSeconds(1)))
                .isEmpty();
        assertThat(deltaLog(store()).appendDelta(name("log-other"), "id-1", 3, first))
                .as("ids are per counter")
                .isEmpty();
        assertThat(store().get(counter))
                .as("every read of a value sees the deltas")
                .isEqualTo(103);
        assertThat(store().getAll(List.of(counter))).containsExactly(Map.entry(counter, 103L));
        assertThat(deltaLog(store()).getFolded(List.of(counter))).containsExactly(Map.entry(counter, 100L));
        assertThat(deltaLog(store()).unfoldedDeltas(counter, 10)).isEqualTo(Map.of("id-1", 5L, "id-2", -2L));
        assertThat(deltaLog(store()).unfoldedDeltas(counter, 1)).hasSize(1);

        assertThat(foldAll(store(), counter, Instant.EPOCH)).isTrue();
        assertThat(store().get(counter)).isEqualTo(103);
        assertThat(store().getAll(List.of(counter))).containsExactly(Map.entry(counter, 103L));
        assertThat(deltaLog(store()).unfoldedDeltas(counter, 10)).isEmpty();
        assertThat(foldAll(store(), counter, Instant.EPOCH))
                .as("nothing left: folds nothing")
                .isTrue();
        assertThat(store().get(counter)).isEqualTo(103);

        CounterName onlyDeltas = name("only-deltas");
        deltaLog(store()).appendDelta(onlyDeltas, "id-1", 7, first);
        assertThat(store().getAll(List.of(onlyDeltas))).containsExactly(Map.entry(onlyDeltas, 7L));
        assertThat(deltaLog(store()).getFolded(List.of(onlyDeltas))).isEmpty();
        assertThat(store().delete(onlyDeltas)).isTrue();
        assertThat(store().getAll(List.of(onlyDeltas))).isEmpty();
    }

    @Test
    void aFoldOfDeltasFoldedMeanwhileWritesNothing() {
        CounterName counter = name("raced");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        deltaLog(store()).appendDelta(counter, "a", 5, now);
        deltaLog(store()).appendDelta(counter, "b", 7, now);
        Map<String, Long> seen = deltaLog(store()).unfoldedDeltas(counter, 10);
        assertThat(deltaLog(anotherStore()).foldDeltas(counter, "main", List.of("a"), 5, Instant.EPOCH))
                .isTrue();
        assertThat(deltaLog(store()).foldDeltas(counter, "main", seen.keySet(), 12, Instant.EPOCH))
                .as("'a' was folded by the other recount")
                .isFalse();
        assertThat(deltaLog(store()).getFolded(List.of(counter))).containsExactly(Map.entry(counter, 5L));
        assertThat(store().getAll(List.of(counter))).containsExactly(Map.entry(counter, 12L));
        assertThat(foldAll(store(), counter, Instant.EPOCH)).isTrue();
        assertThat(store().get(counter)).isEqualTo(12);
    }

    @Test
    void aFoldedDeltaStillRecognisesALateRetryOfItsAppendUntilPurged() {
        CounterName counter = name("tombstone");
        Instant appended = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(deltaLog(store()).appendDelta(counter, "late", 5, appended)).isEmpty();
        assertThat(foldAll(store(), counter, appended)).isTrue();
        assertThat(deltaLog(store()).appendDelta(counter, "late", 5, appended))
                .as("the retry of a folded append")
                .hasValue(5);
        assertThat(store().get(counter)).isEqualTo(5);
        assertThat(foldAll(store(), counter, appended.plusSeconds(1)))
                .as("purges, folds nothing")
                .isTrue();
        assertThat(deltaLog(store()).appendDelta(counter, "late", 5, appended))
                .as("purged: a new append")
                .isEmpty();
        assertThat(store().getAll(List.of(counter))).containsExactly(Map.entry(counter, 10L));
        assertThat(store().delete(counter)).isTrue();
    }

    @Test
    void concurrentAppendsAndFoldsAreExact() {
        CounterName counter = name("folding");
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        Concurrently.run(6, thread -> {
            CounterStore mine = thread % 2 == 0 ? store() : anotherStore();
            for (int i = 0; i < 300; i++) {
                String id = thread + "-" + i;
                retried(() -> deltaLog(mine).appendDelta(counter, id, 1, now));
                if (thread < 2 && i % 50 == 0) {
                    retried(() -> foldAll(mine, counter, Instant.EPOCH));
                }
            }
        });
        assertThat(store().getAll(List.of(counter))).containsExactly(Map.entry(counter, 1_800L));
        assertThat(foldAll(store(), counter, Instant.EPOCH)).isTrue();
        assertThat(store().get(counter)).isEqualTo(1_800);
        assertThat(deltaLog(store()).unfoldedDeltas(counter, 10)).isEmpty();
    }

    // ---- maximum over shards ----

    @Test
    void maxOfShardsNeverDecreases() {
        CounterName counter = name("max");
        assertThat(maxima(store()).maxOfShards(counter)).isEmpty();
        maxima(store()).raiseShard(counter, 0, 10);
        maxima(store()).raiseShard(counter, 3, 7);
        maxima(store()).raiseShard(counter, 0, 4);
        assertThat(maxima(store()).maxOfShards(counter)).hasValue(10);
        maxima(anotherStore()).raiseShard(counter, 3, 12);
        assertThat(maxima(store()).maxOfShards(counter)).hasValue(12);
        store().delete(counter);
        assertThat(maxima(store()).maxOfShards(counter)).isEmpty();
    }

    // ---- leases ----

    @Test
    void leaseIsExclusiveUntilItExpires() {
        String key = "lease:" + name("node").value();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        assertThat(leases(store()).tryLease(key, "a", now.plusSeconds(30), now)).isTrue();
        assertThat(leases(anotherStore()).tryLease(key, "b", now.plusSeconds(40), now.plusSeconds(10)))
                .isFalse();
        assertThat(leases(store()).tryLease(key, "a", now.plusSeconds(60), now.plusSeconds(20)))
                .as("renewal")
                .isTrue();
        assertThat(leases(anotherStore()).tryLease(key, "b", now.plusSeconds(90), now.plusSeconds(59)))
                .isFalse();
        assertThat(leases(anotherStore()).tryLease(key, "b", now.plusSeconds(90), now.plusSeconds(60)))
                .as("expired")
                .isTrue();
        assertThat(leases(store()).tryLease(key, "a", now.plusSeconds(100), now.plusSeconds(61)))
                .isFalse();
        leases(store()).releaseLease(key, "a"); // not the holder: no effect
        assertThat(leases(store()).tryLease(key, "a", now.plusSeconds(100), now.plusSeconds(62)))
                .isFalse();
        leases(anotherStore()).releaseLease(key, "b");
        assertThat(leases(store()).tryLease(key, "a", now.plusSeconds(100), now.plusSeconds(62)))
                .isTrue();
    }

    @Test
    void onlyOneOfManyConcurrentClaimantsGetsALease() {
        String key = "lease:" + name("race").value();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        java.util.concurrent.atomic.AtomicInteger winners = new java.util.concurrent.atomic.AtomicInteger();
        Concurrently.run(8, thread -> {
            CounterStore mine = thread % 2 == 0 ? store() : anotherStore();
            if (retried(() -> leases(mine).tryLease(key, "owner-" + thread, now.plusSeconds(30), now))) {
                winners.incrementAndGet();
            }
        });
        assertThat(winners).hasValue(1);
    }

    // ---- failovers ----

    /**
     * A store that offers {@link Failovers} has made no skip on a database whose history never changed: drawing and
     * loading a maximum hand out what they always did. (A change of history is simulated where the rows can be
     * stamped: the JDBC module's FailoverProtectionContract.)
     */
    @Test
    void failoversWhereOfferedSkipNothingWhileTheHistoryStays() {
        store().capability(Failovers.class).ifPresent(failovers -> {
            Failovers.Skips before = failovers.skips();
            CounterName sequence = name("failover-seq");
            Sequences sequences = capability(store(), Sequences.class);
            assertThat(sequences.reserve(sequence, 5, 1, 1, 1_000).first()).isEqualTo(1);
            assertThat(sequences.reserve(sequence, 5, 1, 1, 1_000).first()).isEqualTo(6);
            CounterName maximum = name("failover-max");
            Maxima maxima = capability(store(), Maxima.class);
            maxima.raiseShard(maximum, 0, 42);
            assertThat(maxima.maxOfShards(maximum)).hasValue(42);
            assertThat(failovers.skips()).isEqualTo(before);
            assertThat(failovers.skipAhead()).isNotNegative();
            assertThat(failovers.durability().replication()).isNotNull();
        });
    }

    // ---- escrow ----

    private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

    private static Escrow escrow(CounterStore store) {
        return capability(store, Escrow.class);
    }

    private static Holds holds(CounterStore store) {
        return capability(store, Holds.class);
    }

    private String node(String id) {
        return Escrow.NODE_PREFIX + prefix() + id;
    }

    /** A counter bound to {@code [min, max]} with the value {@code initial}, all of it in the pool. */
    private CounterName bounded(String suffix, @Nullable Long min, @Nullable Long max, long initial) {
        CounterName counter = name(suffix);
        assertThat(escrow(store()).bind(counter, new Escrow.Bounds(min, max), initial, node("a"), NOW))
                .isEmpty();
        return counter;
    }

    private Escrow.EscrowCell pool(CounterName counter) {
        return escrow(store()).escrowCells(counter).get(Escrow.POOL);
    }

    private Escrow.EscrowState state(CounterName counter) {
        return escrow(store()).state(counter, NOW).orElseThrow();
    }

    @Test
    void bindCreatesThePoolOnceAndTheCounterIsListed() {
        CounterName stock = bounded("stock", 0L, 100L, 10);
        assertThat(escrow(store()).escrowCells(stock))
                .containsExactly(Map.entry(Escrow.POOL, new Escrow.EscrowCell(10, 10L, 90L)));
        assertThat(escrow(anotherStore()).bind(stock, new Escrow.Bounds(0L, 100L), 50, node("a"), NOW))
                .as("bound already: nothing written")
                .isEmpty();
        assertThat(state(stock))
                .isEqualTo(new Escrow.EscrowState(10, new Escrow.Bounds(0L, 100L), 10L, 90L, 0, 0, 0, 0));
        assertThat(store().get(stock)).isEqualTo(10);
        assertThat(store().cells(stock)).containsExactly(Map.entry(Escrow.POOL, 10L));
        assertThat(store().counterNames(prefix(), null, 10)).containsExactly(stock);
        assertThat(escrow(store()).boundedNames(null, 100_000)).contains(stock);
        assertThat(escrow(store()).state(name("unbounded"), NOW)).isEmpty();

        CounterName quota = bounded("quota", null, 5L, 0);
        assertThat(pool(quota)).isEqualTo(new Escrow.EscrowCell(0, null, 5L));
    }

    @Test
    void bindIfAbsentLeavesACounterBoundWithOtherBoundsAsItIs() {
        CounterName slice = name("bound-once");
        assertThat(escrow(store()).bindIfAbsent(slice, new Escrow.Bounds(0L, 2L), 0, node("a"), NOW))
                .isEmpty();
        assertThat(escrow(store()).transfer(slice, node("a"), 0, 2)).isPresent();
        assertThat(escrow(store()).change(slice, node("a"), 2, 2, -2)).isTrue();

        assertThat(escrow(anotherStore()).bindIfAbsent(slice, new Escrow.Bounds(0L, 1L), 0, node("a"), NOW))
                .as("the calling node's cell, as it is")
                .contains(new Escrow.EscrowCell(2, 2L, 0L));
        assertThat(state(slice))
                .as("bounds and rooms as the first bind left them")
                .isEqualTo(new Escrow.EscrowState(2, new Escrow.Bounds(0L, 2L), 2L, 0L, 0, 0, 0, 0));
        keepsTheInvariant(slice);

        CounterName fresh = name("bound-once-fresh");
        escrow(anotherStore()).bindIfAbsent(fresh, new Escrow.Bounds(0L, 5L), 1, node("a"), NOW);
        assertThat(state(fresh))
                .as("absent: bound as bind would")
                .isEqualTo(new Escrow.EscrowState(1, new Escrow.Bounds(0L, 5L), 1L, 4L, 0, 0, 0, 0));
    }

    @Test
    void concurrentBindsOfOneCounterCreateOnePool() {
        CounterName stock = name("raced");
        Concurrently.run(8, thread -> {
            CounterStore mine = thread % 2 == 0 ? store() : anotherStore();
            retried(() -> escrow(mine).bind(stock, new Escrow.Bounds(0L, null), 7, node("n" + thread), NOW));
        });
        assertThat(escrow(store()).escrowCells(stock))
                .containsExactly(Map.entry(Escrow.POOL, new Escrow.EscrowCell(7, 7L, null)));
        assertThat(store().get(stock)).isEqualTo(7);
    }

    @Test
    void rebindingGivesEveryRoomToThePoolAndMayMakeOneNegative() {
        CounterName quota = bounded("rebound", 0L, 100L, 50);
        assertThat(escrow(store()).transfer(quota, node("a"), 20, 10)).isPresent();
        assertThat(escrow(store()).change(quota, node("a"), -3, -3, 3)).isTrue();
        assertThat(holds(store())
                        .applyKeyed(prefix() + "hold", quota, -2, NOW.plusSeconds(60), Escrow.POOL, -2, 0, false, NOW))
                .isPresent();
        // value 45 with 2 held toward the minimum: the rooms are 45 - 0 and 100 - 47 = 53
        assertThat(state(quota))
                .isEqualTo(new Escrow.EscrowState(45, new Escrow.Bounds(0L, 100L), 45L, 53L, 2, 0, 0, 0));

        assertThat(escrow(anotherStore()).bind(quota, new Escrow.Bounds(10L, 40L), 0, node("a"), NOW))
                .as("the calling node's cell, its room given to the pool")
                .contains(new Escrow.EscrowCell(-3, 0L, 0L));
        assertThat(pool(quota)).isEqualTo(new Escrow.EscrowCell(48, 35L, -7L));
        assertThat(state(quota))
                .isEqualTo(new Escrow.EscrowState(45, new Escrow.Bounds(10L, 40L), 35L, -7L, 2, 0, 0, 0));
        assertThat(escrow(store()).change(quota, Escrow.POOL, 1, 1, -1))
                .as("toward a bound moved past the value")
                .isFalse();
        assertThat(escrow(store()).change(quota, Escrow.POOL, -1, -1, 1))
                .as("away from it: a negative room may grow")
                .isTrue();
        assertThat(escrow(store()).transfer(quota, node("a"), 0, 1))
                .as("nor be taken from")
                .isEmpty();

        assertThat(escrow(store()).bind(quota, new Escrow.Bounds(10L, null), 0, node("b"), NOW))
                .isEmpty();
        assertThat(escrow(store()).escrowCells(quota))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        Escrow.POOL,
                        new Escrow.EscrowCell(47, 34L, null),
                        node("a"),
                        new Escrow.EscrowCell(-3, 0L, null)));
        assertThat(store().get(quota)).isEqualTo(44);
    }

    @Test
    void aChangeIsGuardedOnBothRoomsAndWritesNothingWhenRefused() {
        CounterName stock = bounded("guarded", 0L, 10L, 5);
        assertThat(escrow(store()).change(stock, Escrow.POOL, 6, 6, -6)).isFalse();
        assertThat(escrow(store()).change(stock, Escrow.POOL, -6, -6, 6)).isFalse();
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(5, 5L, 5L));
        assertThat(escrow(anotherStore()).change(stock, Escrow.POOL, 5, 5, -5)).isTrue();
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(10, 10L, 0L));
        assertThat(escrow(store()).change(stock, Escrow.POOL, -10, -10, 10)).isTrue();
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(0, 0L, 10L));

        assertThat(escrow(store()).change(stock, node("absent"), 1, 1, -1))
                .as("an absent cell")
                .isFalse();
        assertThat(escrow(store()).escrowCells(stock)).containsOnlyKeys(Escrow.POOL);
    }

    @Test
    void aNullRoomGuardsNothingAndStaysNull() {
        CounterName stock = bounded("restocked", 0L, null, 0);
        assertThat(escrow(store()).change(stock, Escrow.POOL, 1_000, 1_000, -5)).isTrue();
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(1_000, 1_000L, null));
    }

    @Test
    void aChangeOutOfTheLongRangeIsAnOverflowAndWritesNothing() {
        CounterName big = bounded("big", 0L, null, Long.MAX_VALUE - 1);
        assertThatThrownBy(() -> escrow(store()).change(big, Escrow.POOL, 2, 2, 0))
                .isInstanceOf(CounterOverflowException.class);
        CounterName wide = bounded("wide", Long.MIN_VALUE + 1, null, 0);
        assertThat(pool(wide)).isEqualTo(new Escrow.EscrowCell(0, Long.MAX_VALUE, null));
        assertThatThrownBy(() -> escrow(store()).change(wide, Escrow.POOL, 1, 1, 0))
                .as("the room alone leaves the range")
                .isInstanceOf(CounterOverflowException.class);
        assertThat(pool(big)).isEqualTo(new Escrow.EscrowCell(Long.MAX_VALUE - 1, Long.MAX_VALUE - 1, null));
        assertThat(pool(wide)).isEqualTo(new Escrow.EscrowCell(0, Long.MAX_VALUE, null));
    }

    @Test
    void changeAndGetReadsTheStateThatIncludesTheChange() {
        CounterName quota = bounded("read-back", null, 10L, 0);
        assertThat(escrow(store()).changeAndGet(quota, Escrow.POOL, 4, 0, -4, NOW))
                .contains(new Escrow.EscrowState(4, new Escrow.Bounds(null, 10L), null, 6L, 0, 0, 0, 0));
        assertThat(escrow(store()).changeAndGet(quota, Escrow.POOL, 7, 0, -7, NOW))
                .isEmpty();
        assertThat(escrow(store()).changeAndGet(name("unbounded"), Escrow.POOL, 1, 0, 0, NOW))
                .isEmpty();
        assertThat(store().get(quota)).isEqualTo(4);
    }

    @Test
    void aTransferMovesRoomAllOrNothingInBothDirections() {
        CounterName stock = bounded("moved", 0L, 100L, 50);
        assertThat(escrow(store()).transfer(stock, node("a"), 30, 0))
                .as("the pool after it")
                .contains(new Escrow.EscrowCell(50, 20L, 50L));
        assertThat(escrow(store()).transfer(stock, node("a"), 30, 0))
                .as("the pool lacks it")
                .isEmpty();
        assertThat(escrow(store()).transfer(stock, node("a"), -40, 0))
                .as("the node lacks it")
                .isEmpty();
        assertThat(escrow(store()).transfer(stock, node("a"), 10, -1))
                .as("the node lacks its part on one side")
                .isEmpty();
        assertThat(escrow(store()).escrowCells(stock))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        Escrow.POOL,
                        new Escrow.EscrowCell(50, 20L, 50L),
                        node("a"),
                        new Escrow.EscrowCell(0, 30L, 0L)));
        assertThat(escrow(anotherStore()).transfer(stock, node("a"), -10, 5))
                .contains(new Escrow.EscrowCell(50, 30L, 45L));
        assertThat(escrow(store()).escrowCells(stock).get(node("a"))).isEqualTo(new Escrow.EscrowCell(0, 20L, 5L));
        assertThat(state(stock))
                .isEqualTo(new Escrow.EscrowState(50, new Escrow.Bounds(0L, 100L), 50L, 50L, 0, 0, 0, 0));
    }

    @Test
    void aTransferCreatesAndRegistersTheNodeCellOnlyWhenItReceivesRoom() {
        CounterName stock = bounded("created", 0L, null, 50);
        Escrow.NodeAllowance a = new Escrow.NodeAllowance(prefix() + "a", stock);
        assertThat(escrow(store()).transfer(stock, node("a"), -5, 0)).isEmpty();
        assertThat(escrow(store()).transfer(stock, node("a"), 0, 0)).isEmpty();
        assertThat(escrow(store()).transfer(stock, node("a"), 60, 0)).isEmpty();
        assertThat(escrow(store()).escrowCells(stock)).containsOnlyKeys(Escrow.POOL);
        assertThat(allAllowances()).doesNotContain(a);

        assertThat(escrow(store()).transfer(stock, node("a"), 5, 3)).contains(new Escrow.EscrowCell(50, 45L, null));
        assertThat(escrow(store()).escrowCells(stock).get(node("a")))
                .as("0, then 5, toward the minimum; no room toward the absent maximum")
                .isEqualTo(new Escrow.EscrowCell(0, 5L, null));
        assertThat(allAllowances()).contains(a);
        assertThat(store().cells(stock)).containsOnlyKeys(Escrow.POOL, node("a"));

        CounterName quota = bounded("created-both", 0L, 10L, 0);
        assertThat(escrow(store()).transfer(quota, node("a"), -1, 5))
                .as("created, then short of its part toward the minimum: nothing written")
                .isEmpty();
        assertThat(escrow(store()).escrowCells(quota)).containsOnlyKeys(Escrow.POOL);
        assertThat(allAllowances()).doesNotContain(new Escrow.NodeAllowance(prefix() + "a", quota));
    }

    private List<Escrow.NodeAllowance> allAllowances() {
        List<Escrow.NodeAllowance> all = new ArrayList<>();
        Escrow.NodeAllowance after = null;
        for (List<Escrow.NodeAllowance> page;
                !(page = escrow(store()).allowances(after, 50)).isEmpty();
                after = page.get(page.size() - 1)) {
            assertThat(page).hasSizeLessThanOrEqualTo(50);
            all.addAll(page);
        }
        return all;
    }

    @Test
    void retireFoldsTheNodeCellIntoThePoolAndForgetsIt() {
        CounterName stock = bounded("retired", 0L, 100L, 50);
        escrow(store()).transfer(stock, node("a"), 20, 10);
        assertThat(escrow(store()).change(stock, node("a"), -5, -5, 5)).isTrue();
        assertThat(escrow(anotherStore()).retire(stock, node("a"))).contains(new Escrow.EscrowCell(-5, 15L, 15L));
        assertThat(escrow(store()).escrowCells(stock))
                .containsExactly(Map.entry(Escrow.POOL, new Escrow.EscrowCell(45, 45L, 55L)));
        assertThat(store().get(stock)).isEqualTo(45);
        assertThat(allAllowances()).doesNotContain(new Escrow.NodeAllowance(prefix() + "a", stock));
        assertThat(escrow(store()).retire(stock, node("a"))).isEmpty();
    }

    /** Room moves back and forth between two cells while another instance reads: every read sees it all once. */
    @Test
    void theStateIsOneConsistentRead() {
        CounterName stock = bounded("snapshot", 0L, 1_000L, 500);
        AtomicBoolean moving = new AtomicBoolean(true);
        AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        Concurrently.run(2, thread -> {
            if (thread == 0) {
                try {
                    for (int i = 0; i < transfersWhileReading(); i++) {
                        long amount = i % 2 == 0 ? 100 : -100;
                        retried(() -> escrow(store()).transfer(stock, node("a"), amount, amount));
                    }
                } finally {
                    moving.set(false);
                }
            } else {
                while (moving.get() || reads.get() == 0) {
                    Escrow.EscrowState seen = retried(
                                    () -> escrow(anotherStore()).state(stock, NOW))
                            .orElseThrow();
                    assertThat(seen.roomDown()).isEqualTo(500L);
                    assertThat(seen.roomUp()).isEqualTo(500L);
                    assertThat(seen.value()).isEqualTo(500L);
                    reads.incrementAndGet();
                }
            }
        });
        assertThat(reads.get()).isPositive();
        assertThat(escrow(store()).escrowCells(stock).get(node("a"))).isEqualTo(new Escrow.EscrowCell(0, 0L, 0L));
    }

    /** How many transfers {@link #theStateIsOneConsistentRead} makes. */
    protected int transfersWhileReading() {
        return 5_000;
    }

    @Test
    void boundedNamesAndAllowancesPageThroughEveryOneOnce() {
        List<CounterName> mine = List.of(
                bounded("paged.1", 0L, null, 9), bounded("paged.2", 0L, null, 9), bounded("paged.3", null, 10L, 0));
        for (CounterName counter : mine) {
            escrow(store()).transfer(counter, node("n2"), 1, 1);
            escrow(store()).transfer(counter, node("n1"), 1, 1);
        }
        List<CounterName> names = new ArrayList<>();
        CounterName after = null;
        for (List<CounterName> page;
                !(page = escrow(store()).boundedNames(after, 2)).isEmpty();
                after = page.get(page.size() - 1)) {
            assertThat(page).hasSizeLessThanOrEqualTo(2);
            names.addAll(page);
        }
        assertThat(names).doesNotHaveDuplicates().containsSubsequence(mine);

        List<Escrow.NodeAllowance> allowances = new ArrayList<>();
        Escrow.NodeAllowance last = null;
        for (List<Escrow.NodeAllowance> page;
                !(page = escrow(store()).allowances(last, 2)).isEmpty();
                last = page.get(page.size() - 1)) {
            assertThat(page).hasSizeLessThanOrEqualTo(2);
            allowances.addAll(page);
        }
        List<Escrow.NodeAllowance> expected = new ArrayList<>();
        for (String id : List.of("n1", "n2")) {
            mine.forEach(counter -> expected.add(new Escrow.NodeAllowance(prefix() + id, counter)));
        }
        assertThat(allowances).doesNotHaveDuplicates().containsSubsequence(expected);
        assertThat(escrow(store()).escrowCells(mine.get(2)))
                .containsExactlyInAnyOrderEntriesOf(Map.of(
                        Escrow.POOL,
                        new Escrow.EscrowCell(0, null, 8L),
                        node("n1"),
                        new Escrow.EscrowCell(0, null, 1L),
                        node("n2"),
                        new Escrow.EscrowCell(0, null, 1L)));
    }

    @Test
    void deleteRemovesBoundsOperationsAndAllowances() {
        CounterName stock = bounded("deleted", 0L, null, 10);
        escrow(store()).transfer(stock, node("a"), 3, 0);
        holds(store()).applyKeyed(prefix() + "held", stock, -1, NOW.plusSeconds(9), Escrow.POOL, -1, 0, false, NOW);
        holds(store()).recordRefusal(prefix() + "refused", stock, -100, null, 9, NOW);
        assertThat(store().delete(stock)).isTrue();
        assertThat(store().get(stock)).isZero();
        assertThat(escrow(store()).state(stock, NOW)).isEmpty();
        assertThat(escrow(store()).escrowCells(stock)).isEmpty();
        assertThat(escrow(store()).boundedNames(null, 100_000)).doesNotContain(stock);
        assertThat(allAllowances()).doesNotContain(new Escrow.NodeAllowance(prefix() + "a", stock));
        assertThat(holds(store()).operation(prefix() + "held")).isEmpty();
        assertThat(holds(store()).operation(prefix() + "refused")).isEmpty();
        assertThat(holds(store()).dueHolds(stock, NOW.plusSeconds(60), 10)).isEmpty();
        bounded("deleted", 0L, null, 4);
        assertThat(state(stock))
                .isEqualTo(new Escrow.EscrowState(4, new Escrow.Bounds(0L, null), 4L, null, 0, 0, 0, 0));
    }

    @Test
    void aBoundedCounterDeletedAsIdleGoesWithItsBoundsOperationsAndAllowances() {
        CounterName stock = bounded("idle-bounded", 0L, null, 10);
        escrow(store()).transfer(stock, node("a"), 3, 0);
        holds(store()).recordRefusal(prefix() + "idle-refused", stock, -100, null, 10, NOW);
        Map<String, Long> seen = idle(store()).cellVersions(List.of(stock)).get(stock);
        assertThat(idle(anotherStore()).deleteIfUnchanged(stock, seen)).isTrue();
        assertThat(escrow(store()).state(stock, NOW)).isEmpty();
        assertThat(escrow(store()).boundedNames(null, 100_000)).doesNotContain(stock);
        assertThat(allAllowances()).doesNotContain(new Escrow.NodeAllowance(prefix() + "a", stock));
        assertThat(holds(store()).operation(prefix() + "idle-refused")).isEmpty();
    }

    // ---- holds ----

    @Test
    void aKeyedChangeIsAppliedOnceAndARepeatReturnsItsRecord() {
        CounterName stock = bounded("keyed", 0L, null, 10);
        String key = prefix() + "order-1";
        Holds.KeyedOperation first = holds(store())
                .applyKeyed(key, stock, -2, null, Escrow.POOL, -2, 0, true, NOW)
                .orElseThrow();
        Holds.KeyedOperation recorded =
                new Holds.KeyedOperation(key, stock, -2, Holds.OperationState.APPLIED, null, OptionalLong.of(8), false);
        assertThat(first).isEqualTo(withAppliedNow(recorded));
        assertThat(holds(anotherStore()).applyKeyed(key, stock, -2, null, Escrow.POOL, -2, 0, true, NOW))
                .contains(recorded);
        assertThat(holds(store()).applyKeyed(key, stock, -5, null, Escrow.POOL, -5, 0, false, NOW))
                .as("another delta under the key: what the key recorded, nothing written")
                .contains(recorded);
        assertThat(holds(store()).operation(key)).contains(recorded);
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(8, 8L, null));

        Holds.KeyedOperation unvalued = holds(store())
                .applyKeyed(prefix() + "order-2", stock, -1, null, Escrow.POOL, -1, 0, false, NOW)
                .orElseThrow();
        assertThat(unvalued.value()).isEmpty();
        assertThat(unvalued.appliedNow()).isTrue();
        assertThat(holds(store()).operation(prefix() + "unknown")).isEmpty();
    }

    private static Holds.KeyedOperation withAppliedNow(Holds.KeyedOperation operation) {
        return new Holds.KeyedOperation(
                operation.key(),
                operation.counter(),
                operation.delta(),
                operation.state(),
                operation.expiresAt(),
                operation.value(),
                true);
    }

    @Test
    void aKeyedChangeWhoseGuardFailsRecordsNoKey() {
        CounterName stock = bounded("keyed-refused", 0L, null, 10);
        String key = prefix() + "too-many";
        assertThat(holds(store()).applyKeyed(key, stock, -11, null, Escrow.POOL, -11, 0, true, NOW))
                .isEmpty();
        assertThat(holds(store()).applyKeyed(key, stock, -1, null, node("absent"), -1, 0, true, NOW))
                .as("an absent cell")
                .isEmpty();
        assertThat(holds(store()).operation(key)).isEmpty();
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(10, 10L, null));
        assertThat(holds(store()).applyKeyed(key, stock, -10, null, Escrow.POOL, -10, 0, false, NOW))
                .map(Holds.KeyedOperation::appliedNow)
                .contains(true);
        assertThat(store().get(stock)).isZero();
    }

    @Test
    void concurrentRepeatsOfOneKeyedChangeApplyItOnce() {
        CounterName stock = bounded("keyed-raced", 0L, null, 100);
        java.util.concurrent.atomic.AtomicInteger applied = new java.util.concurrent.atomic.AtomicInteger();
        Concurrently.run(8, thread -> {
            CounterStore mine = thread % 2 == 0 ? store() : anotherStore();
            Holds.KeyedOperation operation = retried(() ->
                            holds(mine).applyKeyed(prefix() + "same", stock, -3, null, Escrow.POOL, -3, 0, true, NOW))
                    .orElseThrow();
            assertThat(operation.value()).hasValue(97);
            if (operation.appliedNow()) {
                applied.incrementAndGet();
            }
        });
        assertThat(applied).hasValue(1);
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(97, 97L, null));
    }

    @Test
    void aHoldTakesItsChangeAndIsCountedUntilSettled() {
        CounterName stock = bounded("held", 0L, 100L, 10);
        Instant expiry = NOW.plusSeconds(60);
        Holds.KeyedOperation hold = holds(store())
                .applyKeyed(prefix() + "cart", stock, -4, expiry, Escrow.POOL, -4, 0, false, NOW)
                .orElseThrow();
        assertThat(hold)
                .isEqualTo(new Holds.KeyedOperation(
                        prefix() + "cart", stock, -4, Holds.OperationState.HELD, expiry, OptionalLong.empty(), true));
        holds(store()).applyKeyed(prefix() + "quota", stock, 3, expiry.plusSeconds(1), Escrow.POOL, 0, -3, false, NOW);
        assertThat(state(stock)).isEqualTo(new Escrow.EscrowState(9, new Escrow.Bounds(0L, 100L), 6L, 87L, 4, 3, 0, 0));
        assertThat(escrow(store()).state(stock, expiry))
                .map(Escrow.EscrowState::dueDown)
                .as("due at its expiry")
                .contains(4L);
        assertThat(escrow(store()).state(stock, expiry))
                .map(Escrow.EscrowState::dueUp)
                .contains(0L);
    }

    @Test
    void aRefusalIsRecordedUnlessTheKeyIsRecordedAlready() {
        CounterName stock = bounded("refusals", 0L, null, 1);
        String key = prefix() + "refused";
        Holds.KeyedOperation refused = new Holds.KeyedOperation(
                key, stock, -5, Holds.OperationState.REFUSED, NOW.plusSeconds(30), OptionalLong.of(1), false);
        assertThat(holds(store()).recordRefusal(key, stock, -5, NOW.plusSeconds(30), 1, NOW))
                .isEqualTo(withAppliedNow(refused));
        assertThat(holds(anotherStore()).recordRefusal(key, stock, -5, NOW.plusSeconds(30), 0, NOW))
                .isEqualTo(refused);
        assertThat(holds(store()).applyKeyed(key, stock, -1, null, Escrow.POOL, -1, 0, false, NOW))
                .as("a repeat gets the first answer; nothing written")
                .contains(refused);
        assertThat(store().get(stock)).isEqualTo(1);

        String applied = prefix() + "applied";
        Holds.KeyedOperation first = holds(store())
                .applyKeyed(applied, stock, -1, null, Escrow.POOL, -1, 0, true, NOW)
                .orElseThrow();
        assertThat(holds(store()).recordRefusal(applied, stock, -1, null, 0, NOW))
                .as("the earlier record")
                .isEqualTo(new Holds.KeyedOperation(
                        applied, stock, -1, Holds.OperationState.APPLIED, null, first.value(), false));
    }

    @Test
    void settlingMovesOnlyAnOpenHoldAndMakesItsChange() {
        CounterName stock = bounded("settled", 0L, 100L, 10);
        Instant expiry = NOW.plusSeconds(60);
        String confirmed = prefix() + "confirmed";
        String released = prefix() + "released";
        holds(store()).applyKeyed(confirmed, stock, -2, expiry, Escrow.POOL, -2, 0, false, NOW);
        holds(store()).applyKeyed(released, stock, -3, expiry, Escrow.POOL, -3, 0, false, NOW);
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(5, 5L, 90L));

        assertThat(holds(store()).settle(confirmed, Holds.OperationState.CONFIRMED, Escrow.POOL, 0, 0, 2, NOW))
                .contains(new Holds.KeyedOperation(
                        confirmed, stock, -2, Holds.OperationState.CONFIRMED, expiry, OptionalLong.empty(), true));
        assertThat(holds(anotherStore()).settle(released, Holds.OperationState.RELEASED, Escrow.POOL, 3, 3, 0, NOW))
                .map(Holds.KeyedOperation::state)
                .contains(Holds.OperationState.RELEASED);
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(8, 8L, 92L));
        assertThat(state(stock)).isEqualTo(new Escrow.EscrowState(8, new Escrow.Bounds(0L, 100L), 8L, 92L, 0, 0, 0, 0));

        Holds.KeyedOperation stays = holds(store())
                .settle(confirmed, Holds.OperationState.RELEASED, Escrow.POOL, 2, 2, 0, NOW)
                .orElseThrow();
        assertThat(stays.state()).as("confirmed already").isEqualTo(Holds.OperationState.CONFIRMED);
        assertThat(stays.appliedNow()).isFalse();
        assertThat(holds(store()).settle(released, Holds.OperationState.RELEASED, Escrow.POOL, 3, 3, 0, NOW))
                .map(Holds.KeyedOperation::appliedNow)
                .as("a repeat")
                .contains(false);
        assertThat(pool(stock)).as("nothing written").isEqualTo(new Escrow.EscrowCell(8, 8L, 92L));
        assertThat(holds(store())
                        .settle(prefix() + "unknown", Holds.OperationState.RELEASED, Escrow.POOL, 1, 1, 0, NOW))
                .isEmpty();
    }

    @Test
    void aHoldPastItsExpiryIsNotConfirmedButCanExpire() {
        CounterName stock = bounded("late", 0L, null, 10);
        String key = prefix() + "late";
        Instant expiry = NOW.plusSeconds(60);
        holds(store()).applyKeyed(key, stock, -4, expiry, Escrow.POOL, -4, 0, false, NOW);
        Holds.KeyedOperation late = holds(store())
                .settle(key, Holds.OperationState.CONFIRMED, Escrow.POOL, 0, 0, 0, expiry)
                .orElseThrow();
        assertThat(late.state()).isEqualTo(Holds.OperationState.HELD);
        assertThat(late.appliedNow()).isFalse();
        assertThat(holds(store()).settle(key, Holds.OperationState.EXPIRED, Escrow.POOL, 4, 4, 0, expiry))
                .map(Holds.KeyedOperation::state)
                .contains(Holds.OperationState.EXPIRED);
        assertThat(pool(stock)).isEqualTo(new Escrow.EscrowCell(10, 10L, null));
    }

    @Test
    void settlingWritesTheGivenCellOrThePoolWhenItIsGone() {
        CounterName stock = bounded("settled-node", 0L, null, 10);
        Instant expiry = NOW.plusSeconds(60);
        escrow(store()).transfer(stock, node("a"), 5, 0);
        holds(store()).applyKeyed(prefix() + "on-node", stock, -2, expiry, node("a"), -2, 0, false, NOW);
        holds(store()).applyKeyed(prefix() + "gone", stock, -1, expiry, node("a"), -1, 0, false, NOW);
        holds(store()).settle(prefix() + "on-node", Holds.OperationState.RELEASED, node("a"), 2, 2, 0, NOW);
        assertThat(escrow(store()).escrowCells(stock).get(node("a"))).isEqualTo(new Escrow.EscrowCell(-1, 4L, null));
        escrow(store()).retire(stock, node("a"));
        assertThat(holds(store()).settle(prefix() + "gone", Holds.OperationState.RELEASED, node("a"), 1, 1, 0, NOW))
                .map(Holds.KeyedOperation::state)
                .contains(Holds.OperationState.RELEASED);
        assertThat(escrow(store()).escrowCells(stock))
                .containsExactly(Map.entry(Escrow.POOL, new Escrow.EscrowCell(10, 10L, null)));
    }

    @Test
    void dueHoldsAreTheOpenExpiredOnesEarliestFirst() {
        CounterName stock = bounded("due", 0L, null, 100);
        CounterName other = bounded("due-other", 0L, null, 100);
        Instant t = Instant.parse("1975-01-01T00:00:00Z");
        int[] expiries = {3, 1, 2, 9};
        for (int i = 0; i < expiries.length; i++) {
            holds(store())
                    .applyKeyed(
                            prefix() + "due-" + i, stock, -1, t.plusSeconds(expiries[i]), Escrow.POOL, -1, 0, false, t);
        }
        holds(store()).applyKeyed(prefix() + "due-other", other, -1, t.plusSeconds(2), Escrow.POOL, -1, 0, false, t);
        holds(store()).applyKeyed(prefix() + "due-settled", stock, -1, t, Escrow.POOL, -1, 0, false, t);
        holds(store()).settle(prefix() + "due-settled", Holds.OperationState.EXPIRED, Escrow.POOL, 1, 1, 0, t);

        assertThat(holds(store()).dueHolds(stock, t.plusSeconds(3), 10))
                .extracting(Holds.KeyedOperation::key)
                .containsExactly(prefix() + "due-1", prefix() + "due-2", prefix() + "due-0");
        assertThat(holds(store()).dueHolds(stock, t.plusSeconds(3), 2)).hasSize(2);
        assertThat(holds(store()).dueHolds(stock, t.plusSeconds(3), 1).get(0).state())
                .isEqualTo(Holds.OperationState.HELD);
        assertThat(holds(store()).dueHolds(null, t.plusSeconds(2), 100_000))
                .extracting(Holds.KeyedOperation::key)
                .filteredOn(key -> key.startsWith(prefix()))
                .containsExactlyInAnyOrder(prefix() + "due-1", prefix() + "due-2", prefix() + "due-other");
    }

    @Test
    void pruningForgetsSettledOperationsOldestFirstAndNeverAnOpenHold() {
        CounterName stock = bounded("pruned", 0L, null, 100);
        Instant t = Instant.parse("1971-01-01T00:00:00Z");
        holds(store()).applyKeyed(prefix() + "p-applied", stock, -1, null, Escrow.POOL, -1, 0, false, t);
        holds(store()).recordRefusal(prefix() + "p-refused", stock, -1_000, null, 99, t.plusSeconds(1));
        holds(store()).applyKeyed(prefix() + "p-held", stock, -1, t, Escrow.POOL, -1, 0, false, t);
        holds(store()).applyKeyed(prefix() + "p-confirmed", stock, -1, t.plusSeconds(60), Escrow.POOL, -1, 0, false, t);
        holds(store())
                .settle(
                        prefix() + "p-confirmed",
                        Holds.OperationState.CONFIRMED,
                        Escrow.POOL,
                        0,
                        0,
                        0,
                        t.plusSeconds(2));

        assertThat(holds(store()).pruneOperations(t.plusSeconds(1), 10)).isEqualTo(1);
        assertThat(holds(store()).operation(prefix() + "p-applied")).isEmpty();
        assertThat(holds(store()).pruneOperations(t.plusSeconds(10), 1)).isEqualTo(1);
        assertThat(holds(store()).operation(prefix() + "p-refused"))
                .as("the oldest")
                .isEmpty();
        assertThat(holds(store()).operation(prefix() + "p-confirmed")).isPresent();
        assertThat(holds(store()).pruneOperations(t.plusSeconds(10), 10)).isEqualTo(1);
        assertThat(holds(store()).operation(prefix() + "p-confirmed")).isEmpty();
        assertThat(holds(store()).operation(prefix() + "p-held")).as("open").isPresent();
        assertThat(holds(store()).pruneOperations(Instant.parse("2200-01-01T00:00:00Z"), 100_000))
                .isGreaterThanOrEqualTo(0);
        assertThat(holds(store()).operation(prefix() + "p-held"))
                .as("open, whatever its age")
                .isPresent();
    }

    // ---- escrow: seal ----

    /** The escrow invariant: within bounds, rooms adding up to the distance to each bound (open holds aside). */
    private void keepsTheInvariant(CounterName counter) {
        Escrow.EscrowState state = state(counter);
        Long min = state.bounds().min();
        Long max = state.bounds().max();
        if (min != null) {
            assertThat(state.value()).isGreaterThanOrEqualTo(min);
            assertThat(state.roomDown()).isEqualTo(state.value() - state.heldUp() - min);
        }
        if (max != null) {
            assertThat(state.value()).isLessThanOrEqualTo(max);
            assertThat(state.roomUp()).isEqualTo(max - state.value() - state.heldDown());
        }
    }

    @Test
    void aSealEndsTheRiseAtTheValueAndLetsFallsThrough() {
        CounterName window = bounded("sealed", 0L, 100L, 0);
        assertThat(escrow(store()).transfer(window, node("a"), 0, 20)).isPresent();
        assertThat(escrow(store()).change(window, Escrow.POOL, 30, 30, -30)).isTrue();
        assertThat(escrow(store()).change(window, node("a"), 5, 5, -5)).isTrue();
        String held = prefix() + "held";
        assertThat(holds(store()).applyKeyed(held, window, -2, NOW.plusSeconds(60), Escrow.POOL, -2, 0, false, NOW))
                .isPresent();

        Escrow.EscrowState sealed = new Escrow.EscrowState(33, new Escrow.Bounds(0L, 35L), 33L, 0L, 2, 0, 0, 0);
        assertThat(escrow(anotherStore()).seal(window, NOW))
                .as("max = value + what releasing the hold toward the min would add back")
                .contains(sealed);
        assertThat(escrow(store()).escrowCells(window))
                .containsOnly(
                        Map.entry(Escrow.POOL, new Escrow.EscrowCell(28, 28L, 0L)),
                        Map.entry(node("a"), new Escrow.EscrowCell(5, 5L, 0L)));
        keepsTheInvariant(window);
        assertThat(escrow(store()).seal(window, NOW))
                .as("sealed again: the same")
                .contains(sealed);

        assertThat(escrow(store()).change(window, Escrow.POOL, 1, 1, -1))
                .as("a rise")
                .isFalse();
        assertThat(escrow(store()).change(window, node("a"), 1, 1, -1))
                .as("a rise")
                .isFalse();
        assertThat(escrow(store()).transfer(window, node("a"), 0, 1))
                .as("no room to move")
                .isEmpty();
        assertThat(escrow(store()).change(window, node("a"), -1, -1, 1))
                .as("a fall")
                .isTrue();
        assertThat(holds(store()).settle(held, Holds.OperationState.RELEASED, Escrow.POOL, 2, 2, 0, NOW))
                .map(Holds.KeyedOperation::state)
                .contains(Holds.OperationState.RELEASED);
        assertThat(state(window))
                .isEqualTo(new Escrow.EscrowState(34, new Escrow.Bounds(0L, 35L), 34L, 1L, 0, 0, 0, 0));
        keepsTheInvariant(window);

        CounterName open = bounded("sealed-open", 0L, null, 5);
        assertThat(escrow(store()).seal(open, NOW))
                .as("a counter with no maximum gets one")
                .contains(new Escrow.EscrowState(5, new Escrow.Bounds(0L, 5L), 5L, 0L, 0, 0, 0, 0));
        assertThat(escrow(store()).change(open, Escrow.POOL, 1, 1, -1)).isFalse();
        assertThat(escrow(store()).seal(name("unbounded"), NOW)).isEmpty();
    }

    @Test
    void aBindNeverOpensASealAgain() {
        CounterName slice = bounded("sealed-bind", 0L, 10L, 0);
        assertThat(escrow(store()).change(slice, Escrow.POOL, 4, 4, -4)).isTrue();
        Escrow.EscrowState sealed = new Escrow.EscrowState(4, new Escrow.Bounds(0L, 4L), 4L, 0L, 0, 0, 0, 0);
        assertThat(escrow(store()).seal(slice, NOW)).contains(sealed);

        // A process that read the slice as absent binds it with the bounds it computed, after another sealed it.
        assertThat(escrow(anotherStore()).bind(slice, new Escrow.Bounds(0L, 10L), 0, node("late"), NOW))
                .isEmpty();
        assertThat(state(slice)).as("bounds and rooms as sealed").isEqualTo(sealed);
        assertThat(escrow(anotherStore()).change(slice, Escrow.POOL, 1, 1, -1))
                .as("a rise")
                .isFalse();
        assertThat(escrow(anotherStore()).transfer(slice, node("late"), 0, 1))
                .as("no room to move")
                .isEmpty();
        keepsTheInvariant(slice);

        CounterName never = name("sealed-never-used");
        assertThat(escrow(store()).bind(never, new Escrow.Bounds(0L, 0L), 0, Escrow.POOL, NOW))
                .isPresent();
        assertThat(escrow(store()).seal(never, NOW)).isPresent();
        escrow(anotherStore()).bind(never, new Escrow.Bounds(0L, 10L), 0, node("late"), NOW);
        assertThat(state(never))
                .as("a slice created sealed at 0 stays closed")
                .isEqualTo(new Escrow.EscrowState(0, new Escrow.Bounds(0L, 0L), 0L, 0L, 0, 0, 0, 0));

        assertThat(store().delete(slice)).isTrue();
        escrow(store()).bind(slice, new Escrow.Bounds(0L, 10L), 0, node("a"), NOW);
        assertThat(state(slice))
                .as("deleted, the seal goes with it")
                .isEqualTo(new Escrow.EscrowState(0, new Escrow.Bounds(0L, 10L), 0L, 10L, 0, 0, 0, 0));
    }

    @Test
    void aSealRacingRisesLeavesTheValueFinal() {
        CounterName window = bounded("sealed-race", 0L, 100_000L, 0);
        assertThat(escrow(store()).transfer(window, node("a"), 0, 50_000)).isPresent();
        AtomicLong risen = new AtomicLong();
        CountDownLatch rising = new CountDownLatch(4);
        Concurrently.run(5, thread -> {
            if (thread == 4) {
                rising.await();
                retried(() -> escrow(anotherStore()).seal(window, NOW));
                return;
            }
            String cell = thread % 2 == 0 ? Escrow.POOL : node("a");
            CounterStore mine = thread < 2 ? store() : anotherStore();
            for (int refused = 0, i = 0; refused < 20; i++) {
                if (i == 20) {
                    rising.countDown();
                }
                if (retried(() -> escrow(mine).change(window, cell, 1, 1, -1))) {
                    risen.incrementAndGet();
                } else {
                    refused++; // only once sealed: the rooms hold far more than the rises before it
                }
            }
        });
        Escrow.EscrowState state = state(window);
        assertThat(state.value()).as("every acknowledged rise, and no other").isEqualTo(risen.get());
        assertThat(state.bounds().max()).as("sealed at the value").isEqualTo(risen.get());
        keepsTheInvariant(window);
    }

    // ---- rate limits (GCRA) ----

    /** 2026-01-01 in nanoseconds since the epoch. */
    private static final long T0 = NOW.getEpochSecond() * 1_000_000_000L;

    private static RateLimits rateLimits(CounterStore store) {
        return capability(store, RateLimits.class);
    }

    /** A limiter name of this test's own. */
    private String limiter(String suffix) {
        return prefix() + suffix;
    }

    @Test
    void aKeyIsAdmittedUpToItsBurstAndRefusedPastItToTheNanosecond() {
        String api = limiter("api");
        RateLimits limits = rateLimits(store());
        assertThat(limits.acquire(api, "k", 10, 30, T0)).isEqualTo(new RateLimits.Gcra(true, T0 + 10));
        assertThat(limits.acquire(api, "k", 10, 30, T0)).isEqualTo(new RateLimits.Gcra(true, T0 + 20));
        assertThat(rateLimits(anotherStore()).acquire(api, "k", 10, 30, T0))
                .as("at the boundary: tat + cost = now + burst")
                .isEqualTo(new RateLimits.Gcra(true, T0 + 30));
        assertThat(limits.acquire(api, "k", 10, 30, T0))
                .as("refused, with the tat found")
                .isEqualTo(new RateLimits.Gcra(false, T0 + 30));
        assertThat(limits.acquire(api, "k", 10, 30, T0 + 9)).isEqualTo(new RateLimits.Gcra(false, T0 + 30));
        assertThat(limits.acquire(api, "k", 10, 30, T0 + 10)).isEqualTo(new RateLimits.Gcra(true, T0 + 40));
        assertThat(limits.acquire(api, "k", 1, 30, T0 + 10)).isEqualTo(new RateLimits.Gcra(false, T0 + 40));
        assertThat(limits.tat(api, "k")).hasValue(T0 + 40);

        assertThat(limits.acquire(api, "k", 30, 30, T0 + 1_000))
                .as("a key idle past its tat is a full bucket")
                .isEqualTo(new RateLimits.Gcra(true, T0 + 1_030));
        assertThat(limits.acquire(api, "other", 30, 30, T0)).isEqualTo(new RateLimits.Gcra(true, T0 + 30));
        assertThat(limits.acquire(limiter("web"), "k", 5, 30, T0)).isEqualTo(new RateLimits.Gcra(true, T0 + 5));
        assertThat(limits.tat(api, "k")).as("keys of other limiters apart").hasValue(T0 + 1_030);
    }

    @Test
    void firstUsesOfAFreshKeyRacingAdmitExactlyTheBurst() {
        String api = limiter("race");
        int keys = 10;
        long burst = 12;
        AtomicLongArray admitted = new AtomicLongArray(keys);
        Concurrently.run(8, thread -> {
            RateLimits mine = rateLimits(thread % 2 == 0 ? store() : anotherStore());
            for (int key = 0; key < keys; key++) {
                for (int attempt = 0; attempt < 2; attempt++) {
                    String k = "k" + key;
                    RateLimits.Gcra decision = retried(() -> mine.acquire(api, k, 1, burst, T0));
                    if (decision.admitted()) {
                        admitted.incrementAndGet(key);
                    } else {
                        assertThat(decision.tatNanos())
                                .as("a refusal is by a full bucket")
                                .isEqualTo(T0 + burst);
                    }
                }
            }
        });
        for (int key = 0; key < keys; key++) {
            assertThat(admitted.get(key)).as("admitted of k" + key).isEqualTo(burst);
            assertThat(rateLimits(store()).tat(api, "k" + key)).hasValue(T0 + burst);
        }
    }

    @Test
    void aDeletedKeyIsAbsentAndDecidesAsAFullBucket() {
        String api = limiter("deleted");
        RateLimits limits = rateLimits(store());
        assertThat(limits.tat(api, "k")).isEmpty();
        assertThat(limits.delete(api, "k")).isFalse();
        limits.acquire(api, "k", 30, 30, T0);
        assertThat(limits.acquire(api, "k", 1, 30, T0).admitted()).isFalse();
        assertThat(rateLimits(anotherStore()).delete(api, "k")).isTrue();
        assertThat(limits.tat(api, "k")).isEmpty();
        assertThat(limits.delete(api, "k")).isFalse();
        assertThat(limits.acquire(api, "k", 30, 30, T0)).isEqualTo(new RateLimits.Gcra(true, T0 + 30));
    }

    @Test
    void idleKeysAreDeletedOnlyBeforeTheTimeGivenAndAtMostTheLimit() {
        // Times of 1970, before any other test's: the deletions are of this test's keys only.
        String api = limiter("idle");
        RateLimits limits = rateLimits(store());
        for (int i = 0; i < 5; i++) {
            limits.acquire(api, "k" + i, 1, 1, 1_000 + 10 * i); // tat 1001, 1011, 1021, 1031, 1041
        }
        assertThat(limits.deleteIdle(1_021, 10)).as("the tats before 1021").isEqualTo(2);
        assertThat(limits.tat(api, "k0")).isEmpty();
        assertThat(limits.tat(api, "k1")).isEmpty();
        assertThat(limits.tat(api, "k2")).as("at the time given: kept").hasValue(1_021);
        assertThat(limits.deleteIdle(1_000_000, 0)).isZero();
        assertThat(rateLimits(anotherStore()).deleteIdle(1_000_000, 1)).isEqualTo(1);
        assertThat(limits.deleteIdle(1_000_000, 10)).isEqualTo(2);
        assertThat(limits.tat(api, "k4")).isEmpty();

        String many = limiter("idle-many");
        for (int i = 0; i < 1_050; i++) {
            limits.acquire(many, "k" + i, 1, 1, 2_000 + i);
        }
        assertThat(limits.deleteIdle(1_000_000, 1_020)).as("more than a page").isEqualTo(1_020);
        assertThat(limits.deleteIdle(1_000_000, 1_000_000)).isEqualTo(30);
        assertThat(limits.tat(many, "k1049")).isEmpty();
    }

    // ---- members ----

    private static Members members(CounterStore store) {
        return capability(store, Members.class);
    }

    private static MemberChange add(String member) {
        return new MemberChange(member, true);
    }

    private static MemberChange remove(String member) {
        return new MemberChange(member, false);
    }

    /** Every member of the counter, paged through {@code pageSize} at a time. */
    private static List<String> allMembers(CounterStore store, CounterName counter, int pageSize) {
        List<String> all = new ArrayList<>();
        for (List<String> page = members(store).members(counter, null, pageSize);
                !page.isEmpty();
                page = members(store).members(counter, page.get(page.size() - 1), pageSize)) {
            assertThat(page.size()).as("a page").isLessThanOrEqualTo(pageSize);
            all.addAll(page);
        }
        return all;
    }

    @Test
    void membersChangeOnceInABatchAndAcrossBatchesAndTheCountFollows() {
        CounterName likes = name("likes");
        Members members = members(store());
        assertThat(members.changeMembers(likes, "main", List.of(add("ann"), add("bob"), remove("cid"))))
                .as("two adds, a remove of no member")
                .containsExactly(true, true, false);
        assertThat(store().get(likes)).isEqualTo(2);
        assertThat(members.changeMembers(likes, "main", List.of(add("ann"), remove("bob"), add("cid"))))
                .as("a repeat, a remove, an add")
                .containsExactly(false, true, true);
        assertThat(members(anotherStore()).changeMembers(likes, "main", List.of(remove("bob"), add("cid"))))
                .as("repeats through another instance write nothing")
                .containsExactly(false, false);
        assertThat(store().get(likes)).isEqualTo(2);
        assertThat(members.isMember(likes, "ann")).isTrue();
        assertThat(members(anotherStore()).isMember(likes, "bob")).isFalse();
        assertThat(members.isMember(likes, "cid")).isTrue();
        assertThat(members.isMember(name("other"), "ann"))
                .as("members of their own counter")
                .isFalse();
        assertThat(members.changeMembers(likes, "main", List.of())).isEmpty();
        assertThat(allMembers(store(), likes, 10)).containsExactlyInAnyOrder("ann", "cid");
    }

    @Test
    void aMemberNamedTwiceInABatchChangesAsTheOrderSays() {
        CounterName votes = name("votes");
        Members members = members(store());
        members.changeMembers(votes, "main", List.of(add("kept")));
        assertThat(members.changeMembers(
                        votes,
                        "main",
                        List.of(
                                add("new"),
                                add("new"),
                                remove("kept"),
                                add("kept"),
                                add("gone"),
                                remove("gone"),
                                remove("gone"),
                                remove("absent"),
                                add("absent"),
                                remove("absent"))))
                .containsExactly(true, false, true, true, true, true, false, false, true, true);
        assertThat(store().get(votes)).as("kept and new").isEqualTo(2);
        assertThat(allMembers(store(), votes, 10)).containsExactlyInAnyOrder("kept", "new");
        assertThat(members.changeMembers(votes, "main", List.of(remove("new"), add("new"), remove("new"))))
                .containsExactly(true, true, true);
        assertThat(store().get(votes)).isEqualTo(1);
        assertThat(allMembers(store(), votes, 10)).containsExactly("kept");
    }

    @Test
    void theNetChangeGoesToTheGivenCellOnlyAndNoneWritesNoCell() {
        CounterName follows = name("follows");
        Members members = members(store());
        store().add(follows, "s0", 5);
        members.changeMembers(follows, "s1", List.of(add("a"), add("b"), add("c")));
        assertThat(store().cells(follows)).containsExactlyInAnyOrderEntriesOf(Map.of("s0", 5L, "s1", 3L));
        members.changeMembers(follows, "s2", List.of(remove("a"), remove("b"), add("d")));
        assertThat(store().cells(follows)).containsExactlyInAnyOrderEntriesOf(Map.of("s0", 5L, "s1", 3L, "s2", -1L));
        members.changeMembers(follows, "s3", List.of(remove("c"), add("a"), add("d"), remove("x")));
        assertThat(store().cells(follows))
                .as("a net change of 0 writes no cell")
                .containsExactlyInAnyOrderEntriesOf(Map.of("s0", 5L, "s1", 3L, "s2", -1L));
        assertThat(store().read(follows, "s1")).map(VersionedValue::value).hasValue(3L);
    }

    @Test
    void deleteRemovesTheMembersWithTheCells() {
        CounterName likes = name("likes");
        CounterName kept = name("kept");
        Members members = members(store());
        members.changeMembers(likes, "main", List.of(add("ann"), add("bob")));
        members.changeMembers(kept, "main", List.of(add("ann")));
        assertThat(store().delete(likes)).isTrue();
        assertThat(store().get(likes)).isZero();
        assertThat(members.isMember(likes, "ann")).isFalse();
        assertThat(allMembers(store(), likes, 10)).isEmpty();
        assertThat(members.isMember(kept, "ann"))
                .as("another counter's members stay")
                .isTrue();
        assertThat(members.changeMembers(likes, "main", List.of(add("ann"))))
                .as("added again after the delete")
                .containsExactly(true);
        assertThat(store().get(likes)).isEqualTo(1);
    }

    @Test
    void membersArePagedInOrderEachOnce() {
        CounterName likes = name("likes");
        List<MemberChange> adds = new ArrayList<>();
        for (int i = 24; i >= 0; i--) {
            adds.add(add(String.format("m%02d", i)));
        }
        adds.add(add("x".repeat(128)));
        members(store()).changeMembers(likes, "main", adds);
        List<String> expected = new ArrayList<>(
                new TreeSet<>(adds.stream().map(MemberChange::member).toList()));
        assertThat(members(store()).members(likes, null, 7)).containsExactlyElementsOf(expected.subList(0, 7));
        assertThat(members(store()).members(likes, "m06", 7)).containsExactlyElementsOf(expected.subList(7, 14));
        assertThat(members(store()).members(likes, "m065", 3))
                .as("after a value that is no member")
                .containsExactly("m07", "m08", "m09");
        assertThat(allMembers(anotherStore(), likes, 4)).containsExactlyElementsOf(expected);
        assertThat(members(store()).members(likes, "x".repeat(128), 10)).isEmpty();
        assertThat(store().get(likes)).isEqualTo(26);
    }

    @Test
    void concurrentBatchesFromTwoStoresOnTheSameMembersStayExact() {
        CounterName hot = name("hot");
        int threads = 6;
        int memberCount = 12;
        int batches = Math.max(50, incrementsPerThread() / 50);
        // Per member, the adds and removes reported as changing it: they must alternate, so add - remove is 0 or 1.
        AtomicLongArray changedBy = new AtomicLongArray(memberCount);
        Concurrently.run(threads, thread -> {
            Members mine = members(thread % 2 == 0 ? store() : anotherStore());
            Random random = new Random(thread);
            for (int b = 0; b < batches; b++) {
                List<MemberChange> batch = new ArrayList<>();
                for (int i = 1 + random.nextInt(4); i > 0; i--) {
                    batch.add(new MemberChange("u" + random.nextInt(memberCount), random.nextBoolean()));
                }
                List<Boolean> changed = retried(() -> mine.changeMembers(hot, "s" + thread % 3, batch));
                for (int i = 0; i < batch.size(); i++) {
                    if (changed.get(i)) {
                        int member = Integer.parseInt(batch.get(i).member().substring(1));
                        changedBy.addAndGet(member, batch.get(i).add() ? 1 : -1);
                    }
                }
            }
        });
        List<String> rows = allMembers(store(), hot, 5);
        assertThat(store().get(hot)).as("the count is the number of members").isEqualTo(rows.size());
        for (int member = 0; member < memberCount; member++) {
            assertThat(changedBy.get(member))
                    .as("u" + member + "'s reported adds minus removes")
                    .isEqualTo(rows.contains("u" + member) ? 1 : 0);
        }
    }

    // ---- bad input through the service: a clear error, and nothing written ----

    @Test
    void badInputIsRefusedAndWritesNothing() {
        CounterName views = name("views");
        try (CounterService counters = CounterService.builder(store()).build()) {
            counters.increment(views.value(), 5);
            String injection = views.value() + "'); DROP TABLE counter_cells; --";
            assertThatThrownBy(() -> counters.increment(injection))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'''");
            assertThatThrownBy(() -> counters.increment(""))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("empty");
            assertThatThrownBy(() -> counters.increment(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("null");
            assertThatThrownBy(() -> counters.increment("x".repeat(CounterName.MAX_LENGTH + 1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at most 128");
            assertThatThrownBy(() -> counters.increment(views.value(), 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must not be 0");
            assertThatThrownBy(() -> counters.increment(views.value(), Long.MAX_VALUE))
                    .isInstanceOf(CounterOverflowException.class)
                    .hasMessageContaining(views.value());
            assertThatThrownBy(() -> counters.incrementAndGet(views.value(), Long.MAX_VALUE))
                    .isInstanceOf(CounterOverflowException.class);
            assertThat(counters.get(views.value())).isEqualTo(5);
            assertThat(store().getAll(List.of(views))).containsExactly(Map.entry(views, 5L));
        }
    }

    // ---- exactness under concurrency, through the service ----

    @Test
    void sixteenThreadsOnOneHotCounterAreExact() {
        int threads = 16;
        int perThread = incrementsPerThread();
        CounterName hot = name("hot");
        try (CounterService counters = CounterService.builder(store()).build()) {
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    counters.increment(hot.value());
                }
            });
            assertThat(counters.get(hot.value())).isEqualTo((long) threads * perThread);
        }
    }

    @Test
    void sixteenThreadsOverHundredCountersAreExact() {
        int threads = 16;
        int perThread = incrementsPerThread();
        List<String> names =
                IntStream.range(0, 100).mapToObj(i -> name("c" + i).value()).toList();
        try (CounterService counters = CounterService.builder(store()).build()) {
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    counters.increment(names.get((thread * 7 + i) % names.size()), 2);
                }
            });
            long[] expected = new long[names.size()];
            for (int thread = 0; thread < threads; thread++) {
                for (int i = 0; i < perThread; i++) {
                    expected[(thread * 7 + i) % names.size()] += 2;
                }
            }
            Map<String, Long> values = counters.get(names);
            for (int c = 0; c < names.size(); c++) {
                assertThat(values.get(names.get(c))).as(names.get(c)).isEqualTo(expected[c]);
            }
        }
    }

    @Test
    void concurrentFirstIncrementsOfNewNamesAreExact() {
        int threads = 16;
        List<String> names =
                IntStream.range(0, 1_000).mapToObj(i -> name("new" + i).value()).toList();
        try (CounterService counters = CounterService.builder(store()).build()) {
            // Every thread creates every name, in its own order, so that the first inserts really collide.
            Concurrently.run(threads, thread -> {
                List<String> order = new ArrayList<>(names);
                java.util.Collections.rotate(order, thread * 61);
                for (String name : order) {
                    counters.increment(name);
                }
            });
            assertThat(counters.get(names).values()).hasSize(1_000).containsOnly((long) threads);
        }
    }
}
