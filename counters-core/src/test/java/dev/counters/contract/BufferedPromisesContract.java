package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.counters.BufferFullException;
import dev.counters.Counter;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.CountersException;
import dev.counters.IdempotencyKey;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.BufferedSettings;
import dev.counters.testing.TestThreads;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * What the buffered strategy promises at its limits: a bounded buffer (durable callers and flushes included), an
 * answer for every caller when closing gives up, no value past the 64-bit range ever stored, and reads that a failed
 * clean-up of old flush keys does not stop.
 */
public abstract class BufferedPromisesContract extends ContractSupport {

    protected BufferedPromisesContract(StoreFixture fixture) {
        super(fixture);
    }

    /** Rounds of the close race: each is a few hundred milliseconds in memory, and seconds on a database. */
    protected int closeRaceRounds() {
        return 20;
    }

    private String name(String suffix) {
        return prefix() + suffix;
    }

    private CounterService service(CounterStore store, BufferedSettings settings) {
        return CounterService.builder(store).defaultStrategy(settings).build();
    }

    private static BufferedSettings hourly() {
        return BufferedSettings.defaults().withFlushInterval(Duration.ofHours(1));
    }

    /** The future failed with a {@link CounterStoreException} that says so and whether it may have been applied. */
    private static void assertFailed(CompletableFuture<?> future, String saying, boolean mayHaveBeenApplied) {
        assertThat(failure(future))
                .isInstanceOf(CounterStoreException.class)
                .hasMessageContaining(saying)
                .satisfies(e ->
                        assertThat(((CountersException) e).mayHaveBeenApplied()).isEqualTo(mayHaveBeenApplied));
    }

    private static Throwable failure(CompletableFuture<?> future) {
        assertThat(future).isCompletedExceptionally();
        try {
            future.join();
            throw new AssertionError("not failed");
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    // ---- issue 31, item 4: the durable queue is bounded, and closing answers everyone ----

    @Test
    void durableIncrementsAndFlushesWaitingForAFlushAreBoundedLikeCounters() throws Exception {
        OutageStore flaky = new OutageStore(store());
        String counter = name("durable-bounded");
        try (CounterService counters = service(flaky, hourly().withMaxPendingCounters(3))) {
            flaky.down = true;
            List<CompletableFuture<Void>> calls = new ArrayList<>();
            calls.add(counters.incrementDurably(counter, 1));
            // A batch in flight, failing: no lane starts another while it is retried.
            await().atMost(Duration.ofSeconds(10)).until(() -> flaky.failedBatches.get() >= 2);
            for (int i = 0; i < 10; i++) {
                calls.add(counters.incrementDurably(counter, 1));
            }
            List<CompletableFuture<Void>> refused = calls.stream()
                    .filter(CompletableFuture::isCompletedExceptionally)
                    .toList();
            assertThat(refused)
                    .as("refused at once: at most 3 wait for the next batch")
                    .hasSize(7);
            refused.forEach(call -> assertThat(failure(call))
                    .isInstanceOf(BufferFullException.class)
                    .hasMessageContaining("durable increments and flushes waiting")
                    .hasMessageContaining("max-pending-counters"));
            assertThat(failure(counters.flush())).isInstanceOf(BufferFullException.class);
            flaky.down = false;
            List<CompletableFuture<Void>> accepted = new ArrayList<>(calls);
            accepted.removeAll(refused);
            CompletableFuture.allOf(accepted.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            counters.flush().get(30, TimeUnit.SECONDS);
            assertThat(counters.getExact(counter)).isEqualTo(accepted.size());
        }
    }

    @Test
    void aCloseThatGivesUpAnswersEveryWaitingCallerAndItsFlushSaysSo() throws Exception {
        OutageStore flaky = new OutageStore(store());
        String counter = name("given-up");
        CounterService counters = service(flaky, hourly().withShutdownTimeout(Duration.ofMillis(500)));
        Counter held = counters.counter(counter);
        flaky.down = true;
        CompletableFuture<Void> inFlight = counters.incrementDurably(counter, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> flaky.failedBatches.get() >= 1);
        List<CompletableFuture<Void>> queued = new ArrayList<>();
        List<CompletableFuture<Void>> flushes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            queued.add(counters.incrementDurably(counter, 1));
            flushes.add(counters.flush());
        }
        held.increment(7);
        counters.close();
        // Every caller has its answer once close returns: the batch in doubt may have been applied, the queued never.
        assertThat(failure(inFlight))
                .isInstanceOf(CounterStoreException.class)
                .satisfies(e ->
                        assertThat(((CountersException) e).mayHaveBeenApplied()).isTrue());
        queued.forEach(call -> assertFailed(call, "Not applied", false));
        // A flush covers the batch in doubt: never "not applied", which could make its caller repeat what was written.
        flushes.forEach(call -> assertFailed(call, "may have written", true));
        assertThat(failure(counters.flush()))
                .as("a flush after a close that wrote nothing")
                .isInstanceOf(CounterStoreException.class)
                .hasMessageContaining("Closed without writing everything");
        assertThatThrownBy(() -> held.increment(1)).isInstanceOf(IllegalStateException.class);
        assertThat(failure(held.incrementDurably(1))).isInstanceOf(IllegalStateException.class);
        try (CounterService reader = CounterService.builder(store()).build()) {
            assertThat(reader.getExact(counter)).isZero();
        }
    }

    @Test
    void aFlushAfterACloseThatWroteEverythingSucceeds() throws Exception {
        String counter = name("closed-clean");
        CounterService counters = service(store(), hourly());
        counters.increment(counter, 4);
        counters.close();
        counters.flush().get(10, TimeUnit.SECONDS);
        try (CounterService reader = CounterService.builder(store()).build()) {
            assertThat(reader.getExact(counter)).isEqualTo(4);
        }
    }

    /**
     * Many rounds of close racing increments through held handles and by name, on counters first used during the
     * race (a slot admitted while closing): what was acknowledged is stored, and every handle refuses after close.
     */
    @Test
    void closeRacingIncrementsOfNewCountersLosesNothingAcknowledged() throws Exception {
        int threads = 16;
        for (int round = 0; round < closeRaceRounds(); round++) {
            String counter = name("round" + round);
            CounterService counters = service(store(), hourly());
            AtomicInteger acknowledged = new AtomicInteger();
            AtomicInteger acceptedAfterClose = new AtomicInteger();
            java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
            CountDownLatch started = new CountDownLatch(threads);
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String mine = counter + "." + t;
                callers.add(TestThreads.start(() -> {
                    Counter held = counters.counter(mine);
                    started.countDown();
                    for (int i = 0; ; i++) {
                        boolean late = closed.get();
                        try {
                            if (i % 2 == 0) {
                                held.increment();
                            } else {
                                counters.increment(mine + "." + (i % 8)); // new slots while closing
                            }
                            acknowledged.incrementAndGet();
                            if (late) {
                                acceptedAfterClose.incrementAndGet();
                            }
                        } catch (IllegalStateException refused) {
                            if (late) {
                                return;
                            }
                        }
                    }
                }));
            }
            started.await();
            counters.close();
            closed.set(true);
            for (Thread caller : callers) {
                caller.join(TimeUnit.SECONDS.toMillis(30));
            }
            assertThat(acceptedAfterClose)
                    .as("round %d: accepted after close", round)
                    .hasValue(0);
            try (CounterService reader = CounterService.builder(store()).build()) {
                long stored = 0;
                for (int t = 0; t < threads; t++) {
                    stored += reader.getExact(counter + "." + t);
                    for (int k = 1; k < 8; k += 2) {
                        stored += reader.getExact(counter + "." + t + "." + k);
                    }
                }
                assertThat(stored)
                        .as("round %d: acknowledged increments stored", round)
                        .isEqualTo(acknowledged.get());
            }
        }
    }

    // ---- issue 31, item 7: never a value past the 64-bit range ----

    @Test
    void smallIncrementsAfterALargeOneAreRefusedPastTheRange() throws Exception {
        String counter = name("near-max");
        String down = name("near-min");
        try (CounterService counters = service(store(), hourly())) {
            Counter held = counters.counter(counter);
            held.increment(Long.MAX_VALUE - 1);
            held.increment();
            assertThatThrownBy(held::increment)
                    .isInstanceOf(CounterOverflowException.class)
                    .hasMessageContaining(counter)
                    .hasMessageContaining("Long.MAX_VALUE");
            assertThatThrownBy(() -> counters.increment(counter, 1)).isInstanceOf(CounterOverflowException.class);
            assertThatThrownBy(() -> counters.incrementAndGet(counter, 2)).isInstanceOf(CounterOverflowException.class);
            counters.increment(down, Long.MIN_VALUE + 1);
            counters.increment(down, -1);
            assertThatThrownBy(() -> counters.increment(down, -1)).isInstanceOf(CounterOverflowException.class);
            counters.flush().get(10, TimeUnit.SECONDS);
            assertThat(counters.getExact(counter)).isEqualTo(Long.MAX_VALUE);
            assertThat(counters.getExact(down)).isEqualTo(Long.MIN_VALUE);
        }
    }

    @Test
    void aDurableIncrementPastTheRangeIsRefusedAloneAndNothingWraps() throws Exception {
        String pending = name("pending-max");
        try (CounterService counters = service(store(), hourly())) {
            counters.increment(pending, Long.MAX_VALUE);
            CompletableFuture<Void> over = counters.incrementDurably(pending, 1);
            assertThat(catchFailure(over))
                    .isInstanceOf(CounterOverflowException.class)
                    .hasMessageContaining(pending);
            assertThat(counters.getExact(pending)).isEqualTo(Long.MAX_VALUE);
        }
        // Two durable increments in one batch: a first flush in every lane is held in the store while both arrive.
        String both = name("durable-max");
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger batches = new AtomicInteger();
        ForwardingCounterStore holding =
                holdingBatches(batches, batch -> batch <= BufferedSettings.DEFAULT_FLUSH_LANES, release);
        try (CounterService counters = service(holding, hourly())) {
            List<CompletableFuture<Void>> held = new ArrayList<>();
            for (int lane = 1; lane <= BufferedSettings.DEFAULT_FLUSH_LANES; lane++) {
                held.add(counters.incrementDurably(name("other"), 1));
                int lanesBusy = lane;
                await().atMost(Duration.ofSeconds(10)).until(() -> batches.get() == lanesBusy);
            }
            CompletableFuture<Void> max = counters.incrementDurably(both, Long.MAX_VALUE);
            CompletableFuture<Void> one = counters.incrementDurably(both, 1);
            release.countDown();
            CompletableFuture.allOf(held.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            max.get(30, TimeUnit.SECONDS);
            assertThat(catchFailure(one))
                    .isInstanceOf(CounterOverflowException.class)
                    .hasMessageContaining(both);
            assertThat(counters.getExact(both)).isEqualTo(Long.MAX_VALUE);
        }
    }

    // ---- a flush waits for every lane ----

    /**
     * A flush's promise is every increment made before it, wherever it is: a batch another lane is writing too. Here
     * the first lane's batch is held in the store while the flush is made; another lane takes the flush call, with
     * nothing left in memory to write. The flush must wait for the held batch, and when it completes, the store holds
     * the increment.
     */
    @Test
    void aFlushCompletesOnlyOnceTheBatchesOtherLanesAreWritingAreStored() throws Exception {
        String counter = name("other-lane");
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger batches = new AtomicInteger();
        ForwardingCounterStore holdingTheFirst = holdingBatches(batches, batch -> batch == 1, release);
        try (CounterService counters = service(holdingTheFirst, hourly());
                CounterService reader = CounterService.builder(store()).build()) {
            counters.increment(counter, 5);
            CompletableFuture<Void> durable = counters.incrementDurably(counter, 1); // the first batch, held
            await().atMost(Duration.ofSeconds(10)).until(() -> batches.get() == 1);
            CompletableFuture<Long> storedWhenFlushed = counters.flush().thenApply(done -> reader.getExact(counter));
            try {
                assertThatThrownBy(() -> storedWhenFlushed.get(1, TimeUnit.SECONDS))
                        .as("the flush completed while a batch it covers was still being written")
                        .isInstanceOf(java.util.concurrent.TimeoutException.class);
            } finally {
                release.countDown();
            }
            assertThat(storedWhenFlushed.get(30, TimeUnit.SECONDS)).isEqualTo(6);
            durable.get(30, TimeUnit.SECONDS);
        }
    }

    /**
     * Flushes racing plain and durable increments, with commits of random length so that the lanes' flushes overlap
     * and finish out of order: whenever a flush completes, the store holds every increment acknowledged before it was
     * called, as a reader elsewhere sees it.
     */
    @Test
    void everyFlushAmongOverlappingLanesFindsEverythingAcknowledgedBeforeItStored() throws Exception {
        String counter = name("racing-flushes");
        ForwardingCounterStore slowCommits = ForwardingCounterStore.aroundBatches(store(), apply -> {
            LockSupport.parkNanos(
                    TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(3_000)));
            return apply.get();
        });
        AtomicLong acknowledged = new AtomicLong();
        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        try (CounterService counters = service(slowCommits, hourly());
                CounterService reader = CounterService.builder(store()).build()) {
            List<Thread> callers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                boolean durable = t % 2 == 0;
                callers.add(TestThreads.start(() -> {
                    while (!stop.get()) {
                        if (durable) {
                            counters.incrementDurably(counter, 1).join();
                        } else {
                            counters.increment(counter, 1);
                        }
                        acknowledged.incrementAndGet();
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
            int flushes = 0;
            while (System.nanoTime() < deadline) {
                long before = acknowledged.get();
                counters.flush().get(30, TimeUnit.SECONDS);
                long stored = reader.getExact(counter);
                if (stored < before) {
                    violations.add("flush " + flushes + ": " + stored + " stored, " + before + " acknowledged before");
                }
                flushes++;
            }
            stop.set(true);
            for (Thread caller : callers) {
                caller.join(TimeUnit.SECONDS.toMillis(30));
            }
            counters.flush().get(30, TimeUnit.SECONDS);
            assertThat(violations)
                    .as("flushes completed before what they cover was stored")
                    .isEmpty();
            assertThat(flushes).as("flushes made").isGreaterThan(20);
            assertThat(reader.getExact(counter)).isEqualTo(acknowledged.get());
        }
    }

    /**
     * {@code flush-lanes} bounds the flushes in flight, and so the connections they hold and the rows of a hot
     * counter: with two lanes held in the store, a third durable call waits for one of them.
     */
    @Test
    void noMoreFlushesAreInFlightThanTheFlushLanes() throws Exception {
        String counter = name("two-lanes");
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger batches = new AtomicInteger();
        ForwardingCounterStore holding = holdingBatches(batches, batch -> true, release);
        try (CounterService counters = service(holding, hourly().withFlushLanes(2))) {
            List<CompletableFuture<Void>> calls = new ArrayList<>();
            try {
                for (int call = 1; call <= 2; call++) {
                    calls.add(counters.incrementDurably(counter, 1));
                    int inFlight = call;
                    await().atMost(Duration.ofSeconds(10)).until(() -> batches.get() == inFlight);
                }
                calls.add(counters.incrementDurably(counter, 1));
                Thread.sleep(500); // time enough for a third lane, were there one, to take the call
                assertThat(batches).as("flushes in flight with two lanes").hasValue(2);
            } finally {
                release.countDown();
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(counters.getExact(counter)).isEqualTo(3);
            assertThat(counters.admin().cells(counter)).containsOnlyKeys("main", "main.1");
        }
    }

    /** The flush waiting for another lane's batch gets an answer when closing gives that batch up: no endless wait. */
    @Test
    void aFlushWaitingForAnotherLanesBatchFailsWhenClosingGivesThatBatchUp() throws Exception {
        String counter = name("other-lane-given-up");
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger batches = new AtomicInteger();
        ForwardingCounterStore holdingTheFirst = holdingBatches(batches, batch -> batch == 1, release);
        CounterService counters = service(holdingTheFirst, hourly().withShutdownTimeout(Duration.ofMillis(200)));
        try {
            counters.increment(counter, 5);
            CompletableFuture<Void> durable = counters.incrementDurably(counter, 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> batches.get() == 1);
            CompletableFuture<Void> flush = counters.flush();
            counters.close(); // gives the held batch up after its timeout, and the grace for a stuck store
            // Whether another lane took the flush call before closing or it was still queued, it covers the batch in
            // doubt: an answer that says it may have been written.
            assertThat(catchFailure(flush))
                    .isInstanceOf(CounterStoreException.class)
                    .satisfies(e -> assertThat(((CountersException) e).mayHaveBeenApplied())
                            .isTrue());
            assertThat(catchFailure(durable)).isInstanceOf(CounterStoreException.class);
        } finally {
            release.countDown();
        }
    }

    /** Keyed increments each keyed caller makes at most: fewer than max-pending-counters, so they never wait for room. */
    private static final int KEYED_PER_CALLER = 20_000;

    /**
     * A keyed increment's key is recorded by the flush that writes its delta, never by another lane's: apart, a close
     * that gives up the delta's flush after the key's committed leaves the key recorded without its delta, and the
     * caller's repeat under it is then left out. Keyed callers race durable ones (which keep the lanes collecting, and
     * their flushes overlapping); each keyed counter takes keyed increments only, so a flush's delta for it is the sum of
     * the keyed deltas it records.
     */
    @Test
    void everyKeyIsRecordedByTheFlushThatWritesItsDelta() throws Exception {
        List<String> apart = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicInteger keysRecorded = new AtomicInteger();
        ForwardingCounterStore checking = ForwardingCounterStore.aroundBatches(store(), (deltas, keyed, apply) -> {
            Map<CounterName, Long> keyedSums = new HashMap<>();
            keyed.values().forEach(increment -> keyedSums.merge(increment.counter(), increment.delta(), Long::sum));
            keyedSums.forEach((counter, sum) -> {
                if (!sum.equals(deltas.get(counter))) {
                    apart.add(counter + ": keys of " + sum + " recorded with a delta of " + deltas.get(counter));
                }
            });
            keysRecorded.addAndGet(keyed.size());
            LockSupport.parkNanos(
                    TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(1_000)));
            return apply.get();
        });
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicLong keyedMade = new AtomicLong();
        try (CounterService counters = service(checking, hourly())) {
            List<Thread> callers = new ArrayList<>();
            for (int caller = 0; caller < 2; caller++) {
                callers.add(TestThreads.start(() -> {
                    while (!stop.get()) {
                        counters.incrementDurably(name("keys-durable"), 1).join();
                    }
                }));
                String keyed = name("keyed-" + caller + "-");
                callers.add(TestThreads.start(() -> {
                    for (int i = 0; i < KEYED_PER_CALLER && !stop.get(); i++) {
                        counters.increment(keyed + i % 50, 1, IdempotencyKey.of(keyed + i));
                        keyedMade.incrementAndGet();
                        LockSupport.parkNanos(50_000); // spread over the run, not all in its first moments
                    }
                }));
            }
            Thread.sleep(2_000);
            stop.set(true);
            for (Thread caller : callers) {
                caller.join(TimeUnit.SECONDS.toMillis(30));
            }
            counters.flush().get(30, TimeUnit.SECONDS);
            assertThat(apart)
                    .as("keys recorded by a flush without their deltas")
                    .isEmpty();
            assertThat(keyedMade).as("keyed increments made").hasValueGreaterThan(1_000);
            assertThat(keysRecorded).as("keys recorded").hasValue((int) keyedMade.get());
        }
    }

    /**
     * The store, with each batch counted in {@code batches} and those {@code held} picks (by their number, from 1)
     * held until {@code release} (30 s at most).
     */
    private ForwardingCounterStore holdingBatches(
            AtomicInteger batches, java.util.function.IntPredicate held, CountDownLatch release) {
        return ForwardingCounterStore.aroundBatches(store(), apply -> {
            if (held.test(batches.incrementAndGet())) {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return apply.get();
        });
    }

    private static Throwable catchFailure(CompletableFuture<?> future) throws InterruptedException {
        try {
            future.get(30, TimeUnit.SECONDS);
            throw new AssertionError("expected a failure");
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("no answer within 30 s", e);
        }
    }

    // ---- issue 31, item 10: a failed key prune is not a flush in doubt ----

    @Test
    void aFailedPruneOfOldFlushKeysDoesNotStopReads() throws Exception {
        String counter = name("pruned");
        AtomicInteger prunes = new AtomicInteger();
        ForwardingCounterStore failingPrune = new ForwardingCounterStore(store()) {
            @Override
            public int pruneBatchKeys(Instant appliedBefore) {
                if (prunes.incrementAndGet() == 1) {
                    throw new CounterStoreException("the connection broke while pruning (test)", null);
                }
                return super.pruneBatchKeys(appliedBefore);
            }
        };
        try (CounterService counters = service(failingPrune, hourly())) {
            counters.increment(counter, 2);
            counters.flush().get(10, TimeUnit.SECONDS); // the first flush prunes, and the prune fails
            await().atMost(Duration.ofSeconds(10)).until(() -> prunes.get() >= 1);
            long started = System.nanoTime();
            assertThat(counters.get(counter)).isEqualTo(2);
            assertThat(counters.incrementAndGet(counter, 1)).isEqualTo(3);
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .as("no wait for a flush in doubt")
                    .isLessThan(Duration.ofSeconds(1));
            counters.flush().get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(10)).until(() -> prunes.get() >= 2); // tried again after this flush
            assertThat(counters.statistics().get(0).activity().buffer().failing())
                    .isFalse();
        }
    }
}
