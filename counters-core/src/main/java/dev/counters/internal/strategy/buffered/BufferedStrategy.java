package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.IdempotencyKey;
import dev.counters.StrategyStatistics;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.SelfCounting;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.spi.CounterStore;
import dev.counters.spi.IdempotentBatches;
import dev.counters.strategy.BufferedSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Write-behind counters (the cached delta of "High concurrency counters without sharding", flushed by one named task
 * per interval, and the client-side batching). An increment adds to an in-memory striped adder and returns; a
 * flusher thread writes every dirty counter in one transaction per flush, every flush interval or sooner past a
 * threshold of pending increments. Durable calls are flushed at once by up to
 * {@link BufferedSettings#flushLanes()} flusher threads, each writing a cell of its own, so that their commits share
 * the database's syncs.
 *
 * <p>Each flush carries an idempotency key written in the same transaction: the SQL form of the write-up's named,
 * tombstoned task. The key is an id unique to this flush ({@link UniqueIds}) and a digest of its deltas. A flush whose
 * outcome is unknown (the connection broke during commit) is retried with the same key and the same deltas, so it is
 * applied exactly once; a key found recorded is taken as applied only by such a retry, and otherwise the deltas go
 * again under a new key.
 * A failed flush is tried again at once; after three failures in a row the strategy's circuit breaker
 * (Resilience4j) opens and spaces the attempts with its exponential wait. Meanwhile increments keep counting in memory
 * up to a bound on the number of counters, and the flush catches up when the store returns.
 *
 * <p>What a crash loses: the increments made since the last acknowledged flush (at most one flush interval's worth,
 * more while the store is unreachable). Closing writes everything first, within the shutdown timeout, and takes no
 * increment it cannot write: new counters, keyed and durable increments and flushes pass a {@link CloseGate}, which
 * closing shuts and waits for; a counter's slot takes increments until the last drain seals it
 * ({@link SealableAdder}), so an add is either in the last drain or refused.
 *
 * <p>No caller's code runs on the flusher: the futures it hands out are completed by {@link Completions}. Every wait
 * has a deadline: a read waiting for a flush, a caller waiting for room, closing.
 *
 * <p>This class is the strategy's face; each concern has its own class: the counters' {@link Slots} (with
 * {@link Room} for back-pressure), the keyed increments' {@link PendingKeys}, the {@link DurableQueue}, the
 * {@link Flusher} lanes and their {@link Batch}es, and the {@link FlushEpoch} that keeps reads consistent with them.
 */
public final class BufferedStrategy implements CounterStrategy, SelfCounting {

    private static final Logger LOG = LoggerFactory.getLogger(BufferedStrategy.class);

    /** What {@link #flush()} queues: a durable call of delta 0, which only waits. */
    private static final CounterName FLUSH_MARKER = CounterName.of("flush-marker");

    /** How long closing waits for the last futures' completion at least. */
    private static final long COMPLETION_GRACE_NANOS = Duration.ofSeconds(1).toNanos();

    private final CounterStore store;
    private final IdempotentBatches batchStore;
    private final Time time;
    private final BufferedSettings settings;
    /** New slots, keys and durable calls go through it; closing shuts it, waits for those inside, then drains. */
    private final CloseGate gate = new CloseGate();

    private final FlushStats stats;
    private final FlushEpoch epoch;
    private final Room room;
    private final Slots slots;
    private final PendingKeys keys;
    private final DurableQueue durable;
    private final Completions completions;
    /** The lanes of flushes; lane 0 also flushes on the interval. */
    private final List<Flusher> lanes = new ArrayList<>();
    /** Completes when closing is done: normally if it wrote everything. What {@link #flush()} returns once closed. */
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    public BufferedStrategy(StrategyContext context, BufferedSettings settings) {
        this.store = context.store();
        this.batchStore = context.require(IdempotentBatches.class);
        this.time = context.time();
        this.settings = settings;
        this.stats = new FlushStats(time);
        this.epoch = new FlushEpoch(time, stats);
        this.room = new Room(settings, time, gate, stats, this::wakeIdleLane);
        this.slots = new Slots(settings, gate, room);
        this.keys = new PendingKeys(settings, slots, room);
        this.durable = new DurableQueue(settings, slots, room);
        this.completions = new Completions(task -> context.newThread("buffered-completions", task));
        Flusher.Shared shared = new Flusher.Shared(
                Flusher.breaker(context), completions, slots, keys, durable, epoch, room, stats, lanes);
        for (int lane = 0; lane < settings.flushLanes(); lane++) {
            lanes.add(new Flusher(context, settings, shared, lane));
        }
        lanes.get(0).start(); // the others when a durable call first wants them
    }

    /**
     * A durable call, a full buffer: the first idle lane looks at once, lane 0 if it is idle (a busy lane looks when its
     * flush ends).
     */
    private void wakeIdleLane() {
        for (Flusher lane : lanes) {
            if (lane.idle()) {
                lane.wake();
                return;
            }
        }
    }

    // ---- the hot path ----

    @Override
    public void increment(CounterName name, long delta) {
        slots.increment(name, delta);
    }

    /** Keeps the counter's slot, so that an increment through a held handle is one add to it. */
    @Override
    public LongConsumer incrementer(CounterName name) {
        return new HeldSlot(name);
    }

    /** A handle's counter and its slot; a stale read of the slot only costs a lookup: a retired slot is sealed, and refuses the add. */
    private final class HeldSlot implements LongConsumer {

        private final CounterName name;
        private @Nullable Slot held;

        HeldSlot(CounterName name) {
            this.name = name;
        }

        @Override
        public void accept(long delta) {
            Slot slot = held;
            if (slot == null || slot.isRetired()) {
                slot = slots.lookUp(name);
            }
            held = slots.addTo(name, slot, delta);
        }
    }

    /**
     * Adds the delta to the counter's slot, and queues its key for the next flush, which records it in the same
     * transaction (see {@link PendingKeys}).
     */
    @Override
    public long increment(CounterName name, long delta, IdempotencyKey key, boolean needsValue) {
        gate.enter(name);
        try {
            keys.increment(name, delta, key);
        } finally {
            gate.leave();
        }
        return needsValue ? CounterStrategy.readAfterTaken(name, delta, () -> get(name)) : 0;
    }

    /**
     * Queues the increment for the next flush, which starts at once (group commit): the future completes when the
     * flush carrying it has committed, or fails with the reason it could not be.
     */
    @Override
    public CompletableFuture<Void> incrementDurably(CounterName name, long delta) {
        if (!gate.enter()) {
            return CompletableFuture.failedFuture(CloseGate.refused(name));
        }
        try {
            return durable.add(name, delta);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            gate.leave();
        }
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        increment(name, delta);
        return CounterStrategy.readAfterTaken(name, delta, () -> get(name));
    }

    /**
     * A marker in the queue of durable increments: the next flush takes everything pending with it. Once closed, what
     * closing did: a failure if it could not write everything.
     */
    @Override
    public CompletableFuture<Void> flush() {
        if (!gate.enter()) {
            return closed.copy();
        }
        try {
            return durable.add(FLUSH_MARKER, 0);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            gate.leave();
        }
    }

    @Override
    public long acceptedIncrements() {
        return slots.acceptedIncrements();
    }

    @Override
    public StrategyStatistics.Activity activity() {
        long pendingIncrements = slots.pendingIncrements();
        boolean pending = inFlight().findAny().isPresent() || pendingIncrements != 0 || !durable.isEmpty();
        return stats.activity(pending, slots.size(), pendingIncrements, settings.maxPendingCounters());
    }

    // ---- reads: durable value plus what this node holds ----

    @Override
    public long get(CounterName name) {
        return Objects.requireNonNull(getAll(List.of(name)).get(name), "getAll answers every name");
    }

    /**
     * The stored values plus what this node holds: the slots, read in one epoch of {@link FlushEpoch}, and the batches
     * in flight, each added unless the store's snapshot holds its key. Never waits for a commit.
     */
    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        long started = time.nanoTime();
        while (true) {
            long seen = epoch.awaitReadable(names, started);
            Map<String, Map<CounterName, Long>> batches = new HashMap<>();
            inFlight().forEach(batch -> batches.put(batch.key(), batch.deltas()));
            Map<CounterName, Long> held = new LinkedHashMap<>();
            for (CounterName name : names) {
                held.put(name, slots.pending(name));
            }
            Map<CounterName, Long> stored = batchStore.getAllWithBatches(List.copyOf(names), batches);
            if (epoch.unchanged(seen)) {
                Map<CounterName, Long> values = new LinkedHashMap<>();
                held.forEach(
                        (name, pending) -> values.put(name, addExact(name, stored.getOrDefault(name, 0L), pending)));
                return values;
            }
        }
    }

    /** The batches the lanes are writing, whose deltas are no longer in the slots. */
    private Stream<Batch> inFlight() {
        return lanes.stream().map(Flusher::inFlight).filter(Objects::nonNull);
    }

    private static long addExact(CounterName name, long stored, long pending) {
        try {
            return Math.addExact(stored, pending);
        } catch (ArithmeticException e) {
            throw CounterOverflowException.ofTotal(name);
        }
    }

    @Override
    public Map<String, Long> cells(CounterName name) {
        return store.cells(name);
    }

    @Override
    public void delete(CounterName name) {
        slots.remove(name);
        store.delete(name);
    }

    /**
     * Writes everything pending before returning (within the shutdown timeout). New counters, keys and durable calls
     * are refused from the start, and those under way waited for; the last drain begins by sealing every slot, so an
     * increment of a counter already held is either in it or refused.
     */
    @Override
    public void close() {
        if (!gate.close()) {
            return;
        }
        long deadline = time.nanoTime() + settings.shutdownTimeout().toNanos();
        room.wakeWaiting(); // callers waiting for room give up: closing waits for them
        if (!gate.awaitLeft(time, deadline)) {
            LOG.error(
                    "Closing while increments are still being added after the shutdown timeout of {}; they may be"
                            + " lost",
                    settings.shutdownTimeout());
        }
        lanes.forEach(lane -> lane.stop(deadline));
        String unwritten = null;
        for (Flusher lane : lanes) {
            String laneUnwritten = lane.awaitStopped();
            unwritten = unwritten == null ? laneUnwritten : unwritten;
        }
        // At least a moment for the last answers, even when the drain took the whole timeout.
        completions.shutdown(Math.max(deadline - time.nanoTime(), COMPLETION_GRACE_NANOS));
        if (unwritten == null) {
            closed.complete(null);
        } else {
            closed.completeExceptionally(
                    new CounterStoreException("Closed without writing everything: " + unwritten, null));
        }
    }
}
