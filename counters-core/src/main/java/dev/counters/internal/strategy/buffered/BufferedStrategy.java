package dev.counters.internal.strategy.buffered;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.BufferFullException;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.IdempotencyKey;
import dev.counters.IdempotencyKeyReusedException;
import dev.counters.StrategyStatistics;
import dev.counters.TransientStoreException;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.internal.strategy.AtomicStrategy;
import dev.counters.internal.strategy.CounterStrategy;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.observation.CountersObservationContext.Operation;
import dev.counters.spi.CounterStore;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import dev.counters.spi.IdempotentBatches;
import dev.counters.strategy.BufferedSettings;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Write-behind counters (the cached delta of "High concurrency counters without sharding", flushed by one named task
 * per interval, and the client-side batching). An increment adds to an in-memory striped adder and returns; a
 * flusher thread writes every dirty counter in one transaction per flush, every flush interval or sooner past a
 * threshold of pending increments.
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
 */
public final class BufferedStrategy implements CounterStrategy {

    private static final Logger log = LoggerFactory.getLogger(BufferedStrategy.class);

    /** The cell buffered counters flush into: the same as atomic's, so a counter can move between the two. */
    static final String CELL = AtomicStrategy.CELL;

    /** Idle slots leave the map, but are drained for this long after, for any add that raced the eviction. */
    private static final Duration GRAVEYARD_TIME = Duration.ofMinutes(1);

    /** How long a read waits for the retry of a flush whose outcome is unknown before it gives up. */
    private static final Duration UNCERTAIN_READ_WAIT = Duration.ofSeconds(2);

    /** How long a read waits for a flush that is moving deltas into the store before it gives up. */
    private static final Duration FLUSHING_READ_WAIT = Duration.ofSeconds(10);

    private static final long THRESHOLD_POLL_NANOS = Duration.ofMillis(5).toNanos();

    /** How often an open circuit breaker is asked whether a flush may be tried again. */
    private static final long BREAKER_POLL_NANOS = Duration.ofMillis(100).toNanos();

    private final StrategyContext context;
    private final CounterStore store;
    private final IdempotentBatches batchStore;
    /** Steady time for flush keys' timestamps, which must not jump with the wall clock. */
    private final Time time;
    private final BufferedSettings settings;
    private final UniqueIds ids;

    private final ConcurrentHashMap<CounterName, Slot> slots = new ConcurrentHashMap<>();
    /**
     * The increments this strategy accepted, counted without a second add on the hot path: an increment of 1 is
     * counted by the add to its slot; every other increment (another delta, a durable one) here.
     */
    private final LongAdder otherIncrements = new LongAdder();
    /** The slots' increments of 1 once taken from them (a flush, a delete). */
    private final LongAdder collectedOnes = new LongAdder();
    /** {@link #otherIncrements} at the last collect, for the flush threshold. */
    private volatile long othersAtCollect;
    /** The most {@link #acceptedIncrements()} reported, so that it never goes back (see there). */
    private final AtomicLong reportedIncrements = new AtomicLong();
    /** Durable increments and flush calls waiting for the next batch; {@link #durableQueued} counts them. */
    private final ConcurrentLinkedQueue<DurableIncrement> durableQueue = new ConcurrentLinkedQueue<>();
    /** Bounded by max-pending-counters, like the slots and the pending keys. */
    private final AtomicInteger durableQueued = new AtomicInteger();
    /**
     * The idempotency keys of keyed increments accepted and not yet in a committed batch, where a repeat is recognised;
     * once committed, the store's record of the key recognises it.
     */
    private final ConcurrentHashMap<String, KeyedDelta> pendingKeys = new ConcurrentHashMap<>();
    /**
     * Keys this node flushed lately, so that a repeat here is recognised without a round trip, and a misuse refused.
     * Bounded: a repeat of a key it forgot is still recognised by the store, at the flush.
     */
    private final Cache<String, KeyedDelta> flushedKeys;
    private static final int FLUSHED_KEYS_KEPT = 100_000;
    /** Keyed increments for the next batch; their deltas are in the slots already (added before they are queued). */
    private final ConcurrentLinkedQueue<Map.Entry<String, KeyedDelta>> keyedQueue = new ConcurrentLinkedQueue<>();

    // Written by the flusher thread only; volatile for readers.
    private volatile @Nullable Batch inFlight;
    /** The batch in flight may have been applied (its last attempt's outcome is unknown): reads cannot add it. */
    private volatile boolean inFlightUncertain;
    /** Odd while the flusher moves deltas between the slots, the batch in flight and the store: reads wait. */
    private final AtomicLong flushEpoch = new AtomicLong();
    private final List<Retired> graveyard = new ArrayList<>();
    private long batches;
    /** While the circuit breaker is open: when to ask it again. */
    private long nextAttemptNanos;
    private int consecutiveFailures;

    /** Flush keys are pruned after a successful flush once in a while, and after one that failed, at the next. */
    private boolean pruneDue;

    private final CircuitBreaker breaker;
    private final Thread flusher;
    private final Completions completions;
    private final Object room = new Object();
    /** New slots, keys and durable calls go through it; closing shuts it, waits for those inside, then drains. */
    private final CloseGate gate = new CloseGate();
    /** Set once the adds inside the gate are done: the flusher drains and stops. */
    private volatile boolean closing;
    private volatile long closeDeadlineNanos;
    /** What closing could not write, if anything; null while open or when it wrote everything. */
    private volatile @Nullable String unwrittenOnClose;
    /** Completes when closing is done: normally if it wrote everything. What {@link #flush()} returns once closed. */
    private final CompletableFuture<Void> closed = new CompletableFuture<>();

    // For log and error messages, metrics and health.
    private volatile @Nullable String lastError;
    private final LongAdder flushes = new LongAdder();
    private final LongAdder takenKeys = new LongAdder();
    private final LongAdder failedFlushes = new LongAdder();
    private final LongAdder flushNanos = new LongAdder();
    private volatile long lastFlushedNanos;

    /**
     * A counter's pending deltas. The slot is itself the adder of its increments of 1, which most are: their count and
     * their sum in one add, one pointer from the handle that holds the slot. The last drain seals it.
     */
    private static final class Slot extends SealableAdder {
        /** The sum of the other deltas up to {@link #SMALL_DELTA}, added unchecked. */
        final SealableAdder others = new SealableAdder();
        /** Set by the first larger delta: from then on every add to the slot is checked, under its lock. */
        volatile boolean checked;
        /** The sum of the checked adds; written under the slot's lock. */
        private volatile long large;
        /** Set with the seal of the adders, under the slot's lock: checked adds are refused from then on. */
        private boolean sealed;
        int idleFlushes;
        /** Set when the slot leaves the map: a handle holding it looks the counter up again. */
        volatile boolean retired;

        /** What the slot holds. @throws ArithmeticException when that is past the 64-bit range */
        long pending() {
            return Math.addExact(sum() + others.sum(), large); // small deltas cannot leave the range: SMALL_DELTA
        }

        /** Adds the delta unless the slot's sum would leave the 64-bit range; false once sealed. */
        synchronized boolean addChecked(CounterName name, long delta) {
            if (sealed) {
                return false;
            }
            checked = true;
            try {
                Math.addExact(pending(), delta);
                large = Math.addExact(large, delta);
            } catch (ArithmeticException e) {
                throw new CounterOverflowException(name, delta);
            }
            return true;
        }

        synchronized long takeLarge() {
            long taken = large;
            large = 0;
            return taken;
        }

        /** Refuses every later add; what the slot holds stays until taken. */
        void sealAll() {
            seal();
            others.seal();
            synchronized (this) {
                sealed = true;
            }
        }
    }

    private record Retired(CounterName name, Slot slot, long untilNanos) {
    }

    /** An increment whose caller waits for the flush carrying it; delta 0 only waits (see {@link #flush()}). */
    private record DurableIncrement(CounterName name, long delta, CompletableFuture<Void> done) {
    }

    /**
     * A flush in progress: its key, deltas, keyed increments (whose deltas are among the batch's, or an earlier
     * batch's) and waiting durable callers stay the same across retries.
     */
    private record Batch(String key, Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed,
            List<DurableIncrement> durable) {
    }

    /** A batch under a key of its own: a new id and the digest of its content, so that the key also names it. */
    private Batch batch(Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed, List<DurableIncrement> durable) {
        return new Batch(ids.next() + "." + digest(deltas, keyed), deltas, keyed, durable);
    }

    /** 128 bits of SHA-256 over the cell, the deltas in name order and the keyed increments in key order. */
    private static String digest(Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed) {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
        sha.update(CELL.getBytes(StandardCharsets.US_ASCII));
        new TreeMap<>(deltas).forEach((name, delta) -> {
            sha.update((byte) 0);
            sha.update(name.value().getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) 0);
            sha.update(Long.toString(delta).getBytes(StandardCharsets.US_ASCII));
        });
        new TreeMap<>(keyed).forEach((key, increment) -> {
            sha.update((byte) 1);
            sha.update(key.getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) 0);
            sha.update(increment.counter().value().getBytes(StandardCharsets.US_ASCII));
            sha.update((byte) 0);
            sha.update(Long.toString(increment.delta()).getBytes(StandardCharsets.US_ASCII));
        });
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }

    public BufferedStrategy(StrategyContext context, BufferedSettings settings) {
        this.context = context;
        this.store = context.store();
        this.batchStore = context.require(IdempotentBatches.class, "buffered");
        this.time = context.time();
        this.lastFlushedNanos = time.nanoTime();
        this.settings = settings;
        this.ids = context.ids();
        this.flushedKeys = Caffeine.newBuilder().maximumSize(FLUSHED_KEYS_KEPT)
                .expireAfterWrite(settings.keyRetention()).build();
        this.breaker = context.circuitBreaker("buffered", StrategyContext.breakerForOutages(3)
                .ignoreExceptions(CounterOverflowException.class)
                .build());
        this.completions = new Completions(task -> context.newThread("buffered-completions", task));
        this.flusher = context.newThread("flusher", this::runFlusher);
        this.flusher.start();
    }

    @Override
    public String type() {
        return "buffered";
    }

    // ---- the hot path ----

    @Override
    public void increment(CounterName name, long delta) {
        Slot slot = slots.get(name);
        addTo(name, slot != null ? slot : lookUp(name), delta);
    }

    /** Keeps the counter's slot, so that an increment through a held handle is one add to it. */
    @Override
    public LongConsumer incrementer(CounterName name) {
        return new LongConsumer() {
            private @Nullable Slot held; // a stale read only costs a lookup: a retired slot is never added to

            @Override
            public void accept(long delta) {
                Slot slot = held;
                if (slot == null || slot.retired) {
                    slot = lookUp(name);
                }
                held = addTo(name, slot, delta);
            }
        };
    }

    /** The counter's slot, admitted if new; through the gate, so that no slot is admitted after the last drain. */
    private Slot lookUp(CounterName name) {
        enter(name);
        try {
            return slot(name);
        } finally {
            gate.leave();
        }
    }

    /** Passes the gate, or refuses the increment once closing began: it could miss the last drain. */
    private void enter(CounterName name) {
        if (!gate.enter()) {
            throw closed(name);
        }
    }

    private static IllegalStateException closed(CounterName name) {
        return new IllegalStateException("The buffered strategy is closed; counter '" + name + "' was not incremented");
    }

    private Slot slot(CounterName name) {
        Slot slot = slots.get(name);
        return slot != null ? slot : admit(name);
    }

    /**
     * Adds the delta to the slot, or to the counter's current slot if this one is sealed: by the last drain (then the
     * look-up refuses the increment), or by the final drain of a slot retired a while ago, which a caller that held it
     * all that time must not add to unseen. Returns the slot added to.
     */
    private Slot addTo(CounterName name, Slot slot, long delta) {
        while (!add(name, slot, delta)) {
            slot = lookUp(name);
        }
        return slot;
    }

    /** Adds the delta to the slot; false, having added nothing, once the last drain sealed it. */
    private boolean add(CounterName name, Slot slot, long delta) {
        return delta == 1 && !slot.checked ? slot.add(1) : addOther(name, slot, delta);
    }

    private boolean addOther(CounterName name, Slot slot, long delta) {
        boolean added = slot.checked || delta > SMALL_DELTA || delta < -SMALL_DELTA
                ? slot.addChecked(name, delta) : slot.others.add(delta);
        if (added) {
            otherIncrements.increment();
        }
        return added;
    }

    /**
     * The largest delta added without a check. Smaller ones cannot take a slot past the 64-bit range: that would take
     * 2^47 of them without a flush, longer than the key retention (7 days) at 200 million a second. A larger one is
     * checked against what the slot holds, and so is every later one of that slot: a counter near the end of the range
     * gets {@link CounterOverflowException}. An unchecked add racing the first check can still pass it; the flush
     * then finds the sum out of range and drops the counter's delta, logged, as when the store refuses it.
     */
    private static final long SMALL_DELTA = 1L << 16;

    /** How long close waits for the last futures' completion at least. */
    private static final long COMPLETION_GRACE_NANOS = Duration.ofSeconds(1).toNanos();

    private Slot admit(CounterName name) {
        if (slots.size() >= settings.maxPendingCounters()) {
            waitForRoom(name, () -> slots.size() >= settings.maxPendingCounters(), slots.size() + " counters");
        }
        return slots.computeIfAbsent(name, key -> new Slot());
    }

    /**
     * Waits while {@code full} (with {@code when-full: block}, up to the block timeout), then refuses the increment if
     * still full. {@code holding} says what the buffer holds, for the message.
     */
    private void waitForRoom(CounterName name, BooleanSupplier full, String holding) {
        long deadline = time.nanoTime() + settings.blockTimeout().toNanos();
        if (settings.whenFull() == BufferedSettings.WhenFull.BLOCK) {
            LockSupport.unpark(flusher);
            synchronized (room) {
                long left;
                while (full.getAsBoolean() && !gate.isClosed() && (left = deadline - time.nanoTime()) > 0) {
                    try {
                        TimeUnit.NANOSECONDS.timedWait(room, left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        }
        if (gate.isClosed()) {
            throw closed(name); // closing waits for this caller: do not keep it
        }
        if (full.getAsBoolean()) {
            throw new BufferFullException("The buffer holds pending increments for " + holding
                    + ", its limit (max-pending-counters); counter '" + name + "' was not incremented"
                    + (lastError == null ? "" : ". The store is failing: " + lastError));
        }
    }

    /**
     * Adds the delta to the counter's slot, and queues its key for the next flush, which records it in the same
     * transaction: a repeat while the key is pending is recognised here, one after it is committed by the store, which
     * then leaves its delta out. Until that flush, this node's reads include the repeated delta.
     */
    @Override
    public long increment(CounterName name, long delta, IdempotencyKey key, boolean needsValue) {
        enter(name);
        try {
            takeKeyed(name, delta, key);
        } finally {
            gate.leave();
        }
        return needsValue ? CounterStrategy.readAfterTaken(name, delta, () -> get(name)) : 0;
    }

    private void takeKeyed(CounterName name, long delta, IdempotencyKey key) {
        KeyedDelta increment = new KeyedDelta(name, delta);
        KeyedDelta known = flushedKeys.getIfPresent(key.value());
        if (known == null) {
            known = pendingKeys.get(key.value());
        }
        if (known == null) {
            // Each new key is a row its flush writes: as many as max-pending-counters wait at most, as counters do.
            if (pendingKeys.size() >= settings.maxPendingCounters()) {
                waitForRoom(name, () -> pendingKeys.size() >= settings.maxPendingCounters(),
                        pendingKeys.size() + " idempotency keys");
            }
            known = pendingKeys.putIfAbsent(key.value(), increment);
        }
        if (known == null) {
            try {
                addTo(name, slot(name), delta);
            } catch (RuntimeException e) {
                pendingKeys.remove(key.value(), increment);
                throw e;
            }
            keyedQueue.add(Map.entry(key.value(), increment)); // after the add: a batch never has a key without its delta
        } else if (!known.equals(increment)) {
            throw new IdempotencyKeyReusedException(key, known.counter().value(), known.delta(), name.value(),
                    delta);
        }
    }

    /**
     * Queues the increment for the next flush, which starts at once (group commit): the future completes when the
     * flush carrying it has committed, or fails with the reason it could not be.
     */
    @Override
    public CompletableFuture<Void> incrementDurably(CounterName name, long delta) {
        if (!gate.enter()) {
            return CompletableFuture.failedFuture(closed(name));
        }
        try {
            return queue(name, delta);
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
            return queue(FLUSH_MARKER, 0);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            gate.leave();
        }
    }

    /** Queues a durable increment (delta 0: a flush), within the bound of max-pending-counters waiting at once. */
    private CompletableFuture<Void> queue(CounterName name, long delta) {
        int max = settings.maxPendingCounters();
        for (int queued; (queued = durableQueued.get()) >= max || !durableQueued.compareAndSet(queued, queued + 1); ) {
            if (queued >= max) {
                String holding = queued + " durable increments and flushes waiting for their flush";
                waitForRoom(name, () -> durableQueued.get() >= max, holding);
            }
        }
        DurableIncrement increment = new DurableIncrement(name, delta, new CompletableFuture<>());
        durableQueue.add(increment);
        if (delta != 0) {
            otherIncrements.increment();
        }
        LockSupport.unpark(flusher);
        return increment.done();
    }

    private static final CounterName FLUSH_MARKER = CounterName.of("flush-marker");

    @Override
    public StrategyStatistics.Activity activity() {
        long pendingIncrements = pendingIncrements();
        boolean pending = inFlight != null || pendingIncrements != 0 || !durableQueue.isEmpty();
        Duration lag = pending ? Duration.ofNanos(time.nanoTime() - lastFlushedNanos) : Duration.ZERO;
        return new StrategyStatistics.Activity(takenKeys.sum(), failedFlushes.sum(), 0,
                new StrategyStatistics.BufferActivity(flushes.sum(), failedFlushes.sum(),
                Duration.ofNanos(flushNanos.sum()), slots.size(), pendingIncrements,
                settings.maxPendingCounters(), lag, lastError));
    }

    // ---- reads: durable value plus what this node holds ----

    @Override
    public long get(CounterName name) {
        return Objects.requireNonNull(getAll(List.of(name)).get(name), "getAll answers every name");
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        long started = time.nanoTime();
        while (true) {
            long epoch = flushEpoch.get();
            if (inFlightUncertain) {
                // The store may or may not hold the batch being retried: adding it could count it twice. Wait for the
                // retry to settle it, or fail rather than return a wrong value.
                if (time.nanoTime() - started > UNCERTAIN_READ_WAIT.toNanos()) {
                    throw new CounterStoreException("The value of " + names + " is uncertain while a flush whose "
                            + "outcome is unknown is retried: " + lastError, null);
                }
                LockSupport.parkNanos(1_000_000);
                continue;
            }
            if (time.nanoTime() - started > FLUSHING_READ_WAIT.toNanos()) {
                throw new CounterStoreException("The value of " + names + " cannot be read while the flusher moves"
                        + " deltas into the store: it has not let go for " + FLUSHING_READ_WAIT
                        + (lastError == null ? "" : "; last failure: " + lastError), null);
            }
            if ((epoch & 1) != 0) {
                LockSupport.parkNanos(50_000); // a flush is moving deltas: wait for it
                continue;
            }
            Map<CounterName, Long> local = new LinkedHashMap<>();
            Batch batch = inFlight;
            for (CounterName name : names) {
                Slot slot = slots.get(name);
                long pending;
                try {
                    pending = slot == null ? 0 : slot.pending();
                    if (batch != null) {
                        pending = Math.addExact(pending, batch.deltas().getOrDefault(name, 0L));
                    }
                } catch (ArithmeticException e) {
                    throw CounterOverflowException.ofTotal(name);
                }
                local.put(name, pending);
            }
            Map<CounterName, Long> stored = store.getAll(List.copyOf(names));
            if (flushEpoch.get() == epoch) {
                Map<CounterName, Long> values = new LinkedHashMap<>();
                local.forEach((name, pending) -> values.put(name, addExact(name, stored.getOrDefault(name, 0L), pending)));
                return values;
            }
        }
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
        Slot slot = slots.remove(name);
        if (slot != null) {
            slot.retired = true;
            try {
                take(slot);
            } catch (ArithmeticException e) {
                // deleted anyway
            }
        }
        store.delete(name);
    }

    // ---- the flusher ----

    private void runFlusher() {
        long lastFlushNanos = time.nanoTime();
        while (!closing) {
            long now = time.nanoTime();
            boolean due = inFlight != null
                    || now - lastFlushNanos >= settings.flushInterval().toNanos()
                    || pendingIncrements() >= settings.flushThreshold()
                    || !durableQueue.isEmpty()
                    || slots.size() >= settings.maxPendingCounters()
                    || pendingKeys.size() >= settings.maxPendingCounters() / 2;
            if (due && now >= nextAttemptNanos) {
                lastFlushNanos = now;
                flushOnce();
            } else {
                long untilInterval = lastFlushNanos + settings.flushInterval().toNanos() - now;
                long untilRetry = nextAttemptNanos - now;
                // Wake at least every threshold poll to see whether the pending increments passed the threshold.
                LockSupport.parkNanos(Math.max(100_000, Math.min(thresholdPollNanos(), due ? untilRetry : untilInterval)));
            }
        }
        drainOnClose();
    }

    /** One attempt: write the batch in flight, or make one from what is pending. */
    void flushOnce() {
        Batch batch = inFlight;
        if (batch == null) {
            batch = collect();
            if (batch == null) {
                lastFlushedNanos = time.nanoTime(); // nothing pending: everything so far is durable
                return;
            }
        }
        if (batch.deltas().isEmpty() && batch.keyed().isEmpty()) {
            // Only callers waiting for what came before them, which is durable already: nothing to write.
            inFlight = null;
            lastFlushedNanos = time.nanoTime();
            completions.complete(futures(batch.durable()), null);
            return;
        }
        Batch attempt = batch;
        long started = time.nanoTime();
        boolean applied = false;
        flushEpoch.incrementAndGet(); // odd: readers wait until the batch is in the store, or back in flight
        try {
            inFlight = attempt;
            IdempotentBatches.AppliedBatch result = context.observe(Operation.FLUSH, type(), null,
                    () -> breaker.executeSupplier(() -> apply(attempt)));
            attempt.keyed().forEach((key, increment) -> {
                flushedKeys.put(key, result.repeatedKeys().getOrDefault(key, increment));
                pendingKeys.remove(key, increment); // the store recognises it now
            });
            // Applied now, or by the earlier attempt whose outcome was unknown: the key names these very deltas.
            inFlight = null;
            inFlightUncertain = false;
            lastError = null;
            lastFlushedNanos = time.nanoTime();
            flushes.increment();
            consecutiveFailures = 0;
            applied = true;
        } catch (CounterOverflowException e) {
            // Nothing was written; the overflowing counter's delta can never be applied. Drop it, keep the rest.
            long dropped = attempt.deltas().getOrDefault(nameOf(e), 0L);
            log.error("Dropping the pending delta {} of counter '{}': {}", dropped, e.counter(), e.getMessage());
            Map<CounterName, Long> rest = new HashMap<>(attempt.deltas());
            rest.remove(nameOf(e));
            Map<String, KeyedDelta> keyed = new HashMap<>(attempt.keyed());
            keyed.entrySet().removeIf(entry -> entry.getValue().counter().equals(nameOf(e))
                    && pendingKeys.remove(entry.getKey(), entry.getValue()));
            List<DurableIncrement> waiting = new ArrayList<>();
            List<CompletableFuture<Void>> refused = new ArrayList<>();
            for (DurableIncrement increment : attempt.durable()) {
                if (increment.delta() != 0 && increment.name().equals(nameOf(e))) {
                    refused.add(increment.done());
                } else {
                    waiting.add(increment);
                }
            }
            completions.complete(refused, e);
            inFlight = batch(rest, keyed, waiting); // new deltas, so a new key that names them
            inFlightUncertain = false; // refused whole: no earlier attempt of this key can have been applied
        } catch (KeyTaken e) {
            // The key is recorded, but no attempt of ours can have recorded it: another batch's. Acknowledging would
            // lose these deltas, so they go again under a new key.
            takenKeys.increment();
            log.error("Flush key '{}' was recorded by another batch; writing the same deltas under a new key",
                    attempt.key());
            inFlight = batch(attempt.deltas(), attempt.keyed(), attempt.durable());
        } catch (CallNotPermittedException e) {
            nextAttemptNanos = time.nanoTime() + BREAKER_POLL_NANOS;
        } catch (RuntimeException e) {
            // The outcome may be unknown: keep the same key and deltas for the retry, which makes it exactly once.
            if (!(e instanceof TransientStoreException)) {
                // Stays set until the key is settled: a later attempt that surely failed says nothing about this one.
                inFlightUncertain = true;
            }
            consecutiveFailures++;
            failedFlushes.increment();
            lastError = e.toString();
            log.warn("Flush {} of {} counters failed (attempt {}), retrying with the same key: {}", attempt.key(),
                    attempt.deltas().size(), consecutiveFailures, e.toString());
        } finally {
            flushNanos.add(time.nanoTime() - started);
            flushEpoch.incrementAndGet();
            synchronized (room) {
                room.notifyAll();
            }
        }
        if (applied) {
            completions.complete(futures(attempt.durable()), null);
            if (batches % 1_000 == 1) {
                pruneDue = true;
            }
            pruneKeys();
        }
    }

    /**
     * Forgets flush keys past their retention, outside the flush's epoch: nothing is in flight, so a failure here says
     * nothing about any batch. It is logged and tried again after the next flush.
     */
    private void pruneKeys() {
        if (!pruneDue) {
            return;
        }
        try {
            batchStore.pruneBatchKeys(time.steady().minus(settings.keyRetention()));
            pruneDue = false;
        } catch (RuntimeException e) {
            log.warn("Pruning flush keys older than {} failed; trying again after the next flush: {}",
                    settings.keyRetention(), e.toString());
        }
    }

    private static List<CompletableFuture<Void>> futures(List<DurableIncrement> increments) {
        List<CompletableFuture<Void>> futures = new ArrayList<>(increments.size());
        increments.forEach(increment -> futures.add(increment.done()));
        return futures;
    }

    /** One attempt to apply the batch; its outcome may be unknown if it fails. */
    private IdempotentBatches.AppliedBatch apply(Batch attempt) {
        IdempotentBatches.AppliedBatch applied = batchStore.applyBatch(attempt.key(), CELL, attempt.deltas(),
                attempt.keyed(), time.steady());
        if (!applied.applied() && !inFlightUncertain) {
            throw new KeyTaken(); // keys are unique: a store gone wrong, so a failure for the breaker
        }
        reportMisusedKeys(attempt, applied);
        return applied;
    }

    /**
     * A key the store had recorded for another increment: this node's increment under it was a misuse of the key,
     * acknowledged before the flush found out, and left out all the same. Only the log can say so now.
     */
    private void reportMisusedKeys(Batch batch, IdempotentBatches.AppliedBatch applied) {
        applied.repeatedKeys().forEach((key, recorded) -> {
            KeyedDelta ours = batch.keyed().get(key);
            if (ours != null && !ours.equals(recorded)) {
                log.error("{}; the buffered increment was acknowledged before its flush found the key, and is left out",
                        new IdempotencyKeyReusedException(IdempotencyKey.of(key), recorded.counter().value(),
                                recorded.delta(), ours.counter().value(), ours.delta()).getMessage());
            }
        });
    }

    /** A flush key found recorded, though no attempt of ours can have recorded it. */
    private static final class KeyTaken extends RuntimeException {

        private static final long serialVersionUID = 1L;

        KeyTaken() {
            super(null, null, false, false);
        }
    }

    private static CounterName nameOf(CounterOverflowException e) {
        return CounterName.of(e.counter());
    }

    /**
     * How often the flusher looks whether the pending increments passed the threshold. A look sums every slot (a few
     * nanoseconds each), so with many slots it looks less often, and spends about 1 % of its time on it at most.
     */
    private long thresholdPollNanos() {
        return Math.max(THRESHOLD_POLL_NANOS, slots.size() * 500L);
    }

    /**
     * Increments accepted since the last collect, about: an increment other than 1 is counted just after its add, so a
     * collect may take it before it is counted. For the flush threshold and statistics, never for values.
     */
    private long pendingIncrements() {
        return Math.max(0, otherIncrements.sum() - othersAtCollect + onesInSlots());
    }

    /**
     * Counted when asked, from the slots: the service does not count a buffered increment, which would be a second
     * add. A slot's increments of 1 move to {@link #collectedOnes} after they leave it, and are read from there first, so
     * a move under way can make the count short but never count anything twice; the count reported never goes back.
     */
    @Override
    public OptionalLong acceptedIncrements() {
        long counted = collectedOnes.sum() + otherIncrements.sum(); // before the slots, see above
        counted += onesInSlots();
        return OptionalLong.of(reportedIncrements.accumulateAndGet(counted, Math::max));
    }

    /** The increments of 1 the slots hold now. */
    private long onesInSlots() {
        long ones = 0;
        for (Slot slot : slots.values()) {
            ones += slot.sum();
        }
        return ones;
    }

    /**
     * Empties the slot: its sum, with its increments of 1 counted as collected.
     *
     * @throws ArithmeticException when the sum is past the 64-bit range (the slot is empty all the same)
     */
    private long take(Slot slot) {
        long ones = slot.sumThenReset();
        collectedOnes.add(ones);
        return Math.addExact(Math.addExact(ones, slot.others.sumThenReset()), slot.takeLarge());
    }

    /**
     * Seals every slot before the last drain, once no new slot can come: an add to a slot either is in what the drain
     * writes or fails. In an odd epoch, as the seal moves what the adders hold.
     */
    private void sealSlots() {
        flushEpoch.incrementAndGet();
        try {
            slots.values().forEach(Slot::sealAll);
            graveyard.forEach(retired -> retired.slot().sealAll());
        } finally {
            flushEpoch.incrementAndGet();
        }
    }

    /**
     * Adds what a slot held to the batch's deltas; a sum past the 64-bit range is dropped, and logged, as when the
     * store refuses it. Whether the slot held anything.
     */
    private boolean takeInto(Map<CounterName, Long> deltas, CounterName name, Slot slot) {
        try {
            long delta = take(slot);
            if (delta != 0) {
                deltas.put(name, Math.addExact(deltas.getOrDefault(name, 0L), delta));
            }
            return delta != 0;
        } catch (ArithmeticException e) {
            deltas.remove(name);
            log.error("Dropping the pending deltas of counter '{}': their sum is past the 64-bit range, and would"
                    + " wrap around", name);
            return true;
        }
    }

    /** Moves everything pending into a new batch, evicting slots that stayed idle; null when there is nothing. */
    private @Nullable Batch collect() {
        Map<CounterName, Long> deltas = new HashMap<>();
        long othersAt = otherIncrements.sum();
        List<DurableIncrement> durable = new ArrayList<>();
        flushEpoch.incrementAndGet();
        try {
            // The waiting callers first: what was added before they asked is in the slots by now, so in this batch.
            for (DurableIncrement increment; (increment = durableQueue.poll()) != null; ) {
                durableQueued.decrementAndGet();
                durable.add(increment);
            }
            // The keys before the slots: a key's delta was added before the key was queued, so it is in this batch or
            // an earlier one, never a later one.
            Map<String, KeyedDelta> keyed = new HashMap<>();
            for (Map.Entry<String, KeyedDelta> entry; (entry = keyedQueue.poll()) != null; ) {
                keyed.put(entry.getKey(), entry.getValue());
            }
            long nowNanos = time.nanoTime();
            for (Iterator<Map.Entry<CounterName, Slot>> it = slots.entrySet().iterator(); it.hasNext(); ) {
                Map.Entry<CounterName, Slot> entry = it.next();
                Slot slot = entry.getValue();
                if (takeInto(deltas, entry.getKey(), slot)) {
                    slot.idleFlushes = 0;
                } else if (++slot.idleFlushes >= 2 || slots.size() >= settings.maxPendingCounters()) {
                    slot.retired = true;
                    it.remove();
                    graveyard.add(new Retired(entry.getKey(), slot, nowNanos + GRAVEYARD_TIME.toNanos()));
                }
            }
            // An add that looked a slot up just before its eviction lands in it a moment later: keep draining.
            graveyard.removeIf(retired -> {
                boolean last = nowNanos > retired.untilNanos();
                if (last) {
                    retired.slot().sealAll(); // a caller still holding it finds it sealed, and looks the counter up
                }
                takeInto(deltas, retired.name(), retired.slot());
                return last;
            });
            othersAtCollect = othersAt;
            for (Iterator<DurableIncrement> it = durable.iterator(); it.hasNext(); ) {
                DurableIncrement increment = it.next();
                if (increment.delta() == 0) {
                    continue;
                }
                try {
                    deltas.put(increment.name(), Math.addExact(deltas.getOrDefault(increment.name(), 0L),
                            increment.delta()));
                } catch (ArithmeticException e) {
                    it.remove(); // refused alone and whole: nothing of it is written
                    completions.complete(List.of(increment.done()),
                            new CounterOverflowException(increment.name(), increment.delta()));
                }
            }
            deltas.values().removeIf(delta -> delta == 0);
            if (deltas.isEmpty() && durable.isEmpty() && keyed.isEmpty()) {
                return null;
            }
            batches++;
            Batch batch = batch(deltas, keyed, durable);
            inFlight = batch;
            return batch;
        } finally {
            flushEpoch.incrementAndGet();
        }
    }

    /**
     * The last drain, once no new slot, key or call can come: seals the slots, then flushes until nothing is pending or
     * the shutdown timeout has passed. Then every caller still waiting gets an answer, whether the store kept failing
     * or not.
     */
    private void drainOnClose() {
        sealSlots();
        long deadline = closeDeadlineNanos;
        while (hasPending()) {
            if (time.nanoTime() >= nextAttemptNanos) {
                flushOnce();
            } else if (time.nanoTime() < deadline) {
                LockSupport.parkNanos(Math.min(nextAttemptNanos - time.nanoTime(), 50_000_000));
            }
            if (time.nanoTime() >= deadline && hasPending()) {
                Batch batch = inFlight;
                long counters = slots.values().stream().filter(slot -> pendingOrOverflow(slot) != 0).count()
                        + (batch == null ? 0 : batch.deltas().size());
                log.error("Closing with increments that could not be written within the shutdown timeout of {}:"
                        + " the pending deltas of {} counters are lost ({})", settings.shutdownTimeout(), counters,
                        lastError);
                unwrittenOnClose = "the pending deltas of " + counters + " counters could not be written within the"
                        + " shutdown timeout of " + settings.shutdownTimeout() + " (" + lastError + ")";
                failWaiting(batch, inFlightUncertain);
                return;
            }
        }
    }

    /**
     * Fails every durable caller still waiting, once closing gave up: those of the batch in flight may have been
     * applied if an attempt's outcome is unknown, or one is under way; those still queued surely were not.
     */
    private void failWaiting(@Nullable Batch batch, boolean batchInDoubt) {
        String why = "the buffered strategy closed before it could be written: " + unwrittenOnClose;
        if (batch != null) {
            completions.complete(futures(batch.durable()), batchInDoubt
                    ? new CounterStoreException("The flush carrying this increment may or may not have been"
                            + " applied; " + why, null)
                    : new TransientStoreException("Not applied; " + why, null));
        }
        List<CompletableFuture<Void>> queued = new ArrayList<>();
        for (DurableIncrement increment; (increment = durableQueue.poll()) != null; ) {
            durableQueued.decrementAndGet();
            queued.add(increment.done());
        }
        completions.complete(queued, new TransientStoreException("Not applied; " + why, null));
    }

    private static long pendingOrOverflow(Slot slot) {
        try {
            return slot.pending();
        } catch (ArithmeticException e) {
            return 1;
        }
    }

    private boolean hasPending() {
        return inFlight != null || !durableQueue.isEmpty() || !keyedQueue.isEmpty()
                || slots.values().stream().anyMatch(slot -> pendingOrOverflow(slot) != 0)
                || graveyard.stream().anyMatch(retired -> pendingOrOverflow(retired.slot()) != 0);
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
        synchronized (room) {
            room.notifyAll(); // callers waiting for room give up: closing waits for them
        }
        if (!gate.awaitLeft(time, deadline)) {
            log.error("Closing while increments are still being added after the shutdown timeout of {}; they may be"
                    + " lost", settings.shutdownTimeout());
        }
        closeDeadlineNanos = deadline;
        closing = true;
        LockSupport.unpark(flusher);
        try {
            flusher.join(settings.shutdownTimeout().plusSeconds(5).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (flusher.isAlive()) {
            // Stuck in the store past the timeout: its batch may yet be applied.
            unwrittenOnClose = "the flusher was still writing after the shutdown timeout of "
                    + settings.shutdownTimeout() + " (" + lastError + ")";
            log.error("Closing while the flusher is still writing: {}", unwrittenOnClose);
            slots.values().forEach(Slot::sealAll); // held handles are refused all the same
            failWaiting(inFlight, true);
        }
        // At least a moment for the last answers, even when the drain took the whole timeout.
        completions.shutdown(Math.max(deadline - time.nanoTime(), COMPLETION_GRACE_NANOS));
        String unwritten = unwrittenOnClose;
        if (unwritten == null) {
            closed.complete(null);
        } else {
            closed.completeExceptionally(new CounterStoreException("Closed without writing everything: "
                    + unwritten, null));
        }
    }
}
