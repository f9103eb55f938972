package dev.counters.internal.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.Counter;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.TransientStoreException;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import dev.counters.testing.TestThreads;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Concurrent increments of one row (delta-log: of one counter's log) in a JVM share writes: fewer store calls than increments, each caller answered
 * only by the write that carried its delta, with a total that includes its delta and no later one. The store here
 * makes every write take a while, as a durable commit does.
 */
class CombiningTest {

    private static final int THREADS = 32;

    private static StrategySettings strategy(String type) {
        return switch (type) {
            case "atomic" -> AtomicSettings.defaults();
            case "node" -> NodeSettings.defaults();
            case "sharded" -> ShardedSettings.defaults().withShards(2);
            case "optimistic" -> OptimisticSettings.defaults();
            default -> throw new IllegalArgumentException(type);
        };
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"atomic", "node", "sharded", "optimistic"})
    void concurrentIncrementsShareWritesAndEachGetsItsOwnTotal(String type) throws Exception {
        SlowStore store = new SlowStore(Duration.ofMillis(20));
        List<Long> totals = new CopyOnWriteArrayList<>();
        try (CounterService counters =
                CounterService.builder(store).defaultStrategy(strategy(type)).build()) {
            runConcurrently(THREADS, i -> totals.add(counters.incrementAndGet("hot", 1)));
            assertThat(counters.get("hot")).isEqualTo(THREADS);
        }
        assertThat(totals)
                .as("one total per caller, as if applied one by one: each includes its own delta, and "
                        + "none a later one")
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, THREADS).boxed().toList());
        assertThat(store.writes.get())
                .as("store writes for " + THREADS + " increments")
                .isLessThan(THREADS / 2);
    }

    @Test
    void concurrentDeltaLogIncrementsShareRows() throws Exception {
        SlowStore store = new SlowStore(Duration.ofMillis(20));
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(DeltaLogSettings.defaults())
                .build()) {
            runConcurrently(THREADS, i -> counters.increment("hot", 1L << i)); // distinct bits: a lost one shows
            assertThat(counters.get("hot")).isEqualTo((1L << THREADS) - 1);
        }
        assertThat(store.writes.get())
                .as("delta rows for " + THREADS + " increments")
                .isLessThan(THREADS / 2);
    }

    @Test
    void incrementsThroughKeptHandlesShareWritesWithIncrementsByName() throws Exception {
        SlowStore store = new SlowStore(Duration.ofMillis(20));
        try (CounterService counters = CounterService.builder(store)
                .defaultStrategy(AtomicSettings.defaults())
                .build()) {
            Counter handle = counters.counter("hot"); // holds the cell's combiner
            runConcurrently(THREADS, i -> {
                if (i % 2 == 0) {
                    handle.increment(1L << i);
                } else {
                    counters.increment("hot", 1L << i);
                }
            });
            assertThat(counters.get("hot")).isEqualTo((1L << THREADS) - 1);
        }
        assertThat(store.writes.get())
                .as("store writes for " + THREADS + " increments")
                .isLessThan(THREADS / 2);
    }

    /**
     * A write that is retried takes the deltas queued meanwhile; a caller among them who asked for the total gets it,
     * even when the write began for callers who did not (an incrementAndGet joining an increment's retried write once
     * got 0).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"atomic", "node"})
    void aCallerWhoseDeltaJoinsARetriedWriteGetsTheTotal(String type) throws Exception {
        RolledBackOnce store = new RolledBackOnce();
        try (CounterService counters =
                CounterService.builder(store).defaultStrategy(strategy(type)).build()) {
            CompletableFuture<Void> increment = CompletableFuture.runAsync(() -> counters.increment("hot", 1));
            assertThat(store.firstWrite.await(10, TimeUnit.SECONDS)).isTrue();
            CompletableFuture<Long> incrementAndGet =
                    CompletableFuture.supplyAsync(() -> counters.incrementAndGet("hot", 2));
            Thread.sleep(200); // the second call queues behind the write in flight
            store.rollBack.countDown();
            assertThat(incrementAndGet.get(10, TimeUnit.SECONDS))
                    .as("the total after both deltas")
                    .isEqualTo(3);
            increment.get(10, TimeUnit.SECONDS);
            assertThat(counters.get("hot")).isEqualTo(3);
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"atomic", "node", "sharded"})
    void aFailedWriteFailsExactlyTheCallersWhoseDeltasItCarried(String type) throws Exception {
        SlowStore store = new SlowStore(Duration.ofMillis(20));
        store.failWrite = 2; // the second write's outcome is unknown: not retried, reported to its callers
        Map<Long, Throwable> failed = new ConcurrentHashMap<>();
        List<Long> acknowledged = new CopyOnWriteArrayList<>();
        try (CounterService counters =
                CounterService.builder(store).defaultStrategy(strategy(type)).build()) {
            runConcurrently(THREADS, i -> {
                long delta = 1L << i; // distinct bits: a sum names its deltas
                try {
                    counters.increment("hot", delta);
                    acknowledged.add(delta);
                } catch (CounterStoreException e) {
                    failed.put(delta, e);
                }
            });
            long failedSum = failed.keySet().stream().mapToLong(Long::longValue).sum();
            assertThat(failedSum)
                    .as("the failed callers are exactly the failed write's deltas")
                    .isEqualTo(store.failedSum.get());
            assertThat(failed).isNotEmpty();
            assertThat(counters.get("hot"))
                    .as("everything acknowledged, and nothing else")
                    .isEqualTo(acknowledged.stream().mapToLong(Long::longValue).sum());
        }
    }

    /** A guarded row refusing a batch (a bounded counter's pool) refuses only the members that do not fit alone. */
    @Test
    void aBatchRefusedAsAWholeIsWrittenMemberByMember() throws Exception {
        AtomicLong room = new AtomicLong(3);
        CountDownLatch gate = new CountDownLatch(1);
        AtomicInteger writes = new AtomicInteger();
        Combiner combiner = new Combiner(batch -> {
            long sum = batch.takeQueued();
            if (writes.getAndIncrement() == 0) {
                try {
                    gate.await(10, TimeUnit.SECONDS); // the first write holds the row while the others queue
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
            if (room.get() + sum < 0) {
                throw new Combiner.SplitBatch("no room for " + sum);
            }
            return room.addAndGet(sum);
        });
        Thread first = TestThreads.start(() -> combiner.submit(-1, false));
        await().until(() -> writes.get() == 1);
        List<Throwable> outcomes = queueTwoBehind(first, gate, () -> combiner.submit(-2, false));
        assertThat(outcomes)
                .hasSize(2)
                .containsNull()
                .anySatisfy(e -> assertThat(e).isInstanceOf(Combiner.SplitBatch.class));
        assertThat(room.get()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"atomic", "optimistic"})
    void whenACombinedDeltaOverflowsOnlyTheDeltaThatOverflowsIsRefused(String type) throws Exception {
        SlowStore store = new SlowStore(Duration.ZERO);
        try (CounterService counters =
                CounterService.builder(store).defaultStrategy(strategy(type)).build()) {
            counters.increment("edge", Long.MAX_VALUE - 10);
            CountDownLatch gate = new CountDownLatch(1);
            store.gate = gate;
            Thread first = TestThreads.start(() -> counters.increment("edge", 1));
            await().until(() -> store.waiting.get() == 1); // the first write is in flight, holding the row
            List<Throwable> outcomes = queueTwoBehind(first, gate, () -> counters.increment("edge", 6));
            assertThat(outcomes)
                    .hasSize(2)
                    .containsNull()
                    .anySatisfy(e -> assertThat(e).isInstanceOf(CounterOverflowException.class));
            assertThat(counters.get("edge")).isEqualTo(Long.MAX_VALUE - 3);
        }
    }

    private interface Task {
        void run(int index) throws Exception;
    }

    /**
     * Two callers making {@code call} while {@code first}'s write holds the row until {@code gate} opens: they queue
     * behind it, and share the next write. Their outcomes, null for success.
     */
    private static List<Throwable> queueTwoBehind(Thread first, CountDownLatch gate, Runnable call)
            throws InterruptedException {
        List<Throwable> outcomes = Collections.synchronizedList(new ArrayList<>());
        List<Thread> queued = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            queued.add(TestThreads.start(() -> {
                try {
                    call.run();
                    outcomes.add(null);
                } catch (RuntimeException e) {
                    outcomes.add(e);
                }
            }));
        }
        await().until(() -> queued.stream().allMatch(t -> t.getState() == Thread.State.TIMED_WAITING));
        gate.countDown();
        first.join();
        for (Thread thread : queued) {
            thread.join();
        }
        return outcomes;
    }

    private static void runConcurrently(int threads, Task task) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> error = new AtomicReference<>();
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int index = i;
            started.add(TestThreads.start(() -> {
                try {
                    start.await();
                    task.run(index);
                } catch (Throwable e) {
                    error.compareAndSet(null, e);
                }
            }));
        }
        start.countDown();
        for (Thread thread : started) {
            thread.join();
        }
        if (error.get() != null) {
            throw new AssertionError(error.get());
        }
    }

    /** An in-memory store whose writes take a while; it counts them, and can fail or hold one. */
    private static final class SlowStore extends ForwardingCounterStore {

        final AtomicInteger writes = new AtomicInteger();
        final AtomicInteger waiting = new AtomicInteger();
        final AtomicReference<Long> failedSum = new AtomicReference<>();
        private final Duration latency;
        volatile int failWrite;
        volatile CountDownLatch gate;

        SlowStore(Duration latency) {
            super(new InMemoryCounterStore());
            this.latency = latency;
        }

        @Override
        public void add(CounterName counter, String cell, long delta) {
            write(delta);
            super.add(counter, cell, delta);
        }

        @Override
        public long addAndGet(CounterName counter, String cell, long delta) {
            write(delta);
            return super.addAndGet(counter, cell, delta);
        }

        @Override
        public OptionalLong appendDelta(CounterName counter, String deltaId, long delta, Instant now) {
            write(delta);
            return super.appendDelta(counter, deltaId, delta, now);
        }

        @Override
        public boolean compareAndSet(
                CounterName counter, String cell, @Nullable VersionedValue expected, long newValue) {
            write(0);
            return super.compareAndSet(counter, cell, expected, newValue);
        }

        private void write(long delta) {
            int n = writes.incrementAndGet();
            CountDownLatch held = gate;
            try {
                if (held != null) {
                    waiting.incrementAndGet();
                    gate = null;
                    held.await();
                }
                Thread.sleep(latency.toMillis(), latency.toNanosPart() % 1_000_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (n == failWrite) {
                failedSum.set(delta);
                throw new CounterStoreException("connection lost during commit (test)", null);
            }
        }
    }

    /** Rolls back its first write, once the test lets it: the write is retried. */
    private static final class RolledBackOnce extends ForwardingCounterStore {

        final CountDownLatch firstWrite = new CountDownLatch(1);
        final CountDownLatch rollBack = new CountDownLatch(1);
        private final AtomicInteger writes = new AtomicInteger();

        RolledBackOnce() {
            super(new InMemoryCounterStore());
        }

        @Override
        public void add(CounterName counter, String cell, long delta) {
            rollBackTheFirst();
            super.add(counter, cell, delta);
        }

        @Override
        public long addAndGet(CounterName counter, String cell, long delta) {
            rollBackTheFirst();
            return super.addAndGet(counter, cell, delta);
        }

        private void rollBackTheFirst() {
            if (writes.incrementAndGet() == 1) {
                firstWrite.countDown();
                try {
                    rollBack.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new TransientStoreException("rolled back (test)", null);
            }
        }
    }
}
