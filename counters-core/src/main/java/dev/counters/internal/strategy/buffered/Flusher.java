package dev.counters.internal.strategy.buffered;

import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.TransientStoreException;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.internal.strategy.StrategyContext;
import dev.counters.internal.strategy.buffered.Batch.DurableIncrement;
import dev.counters.observation.CountersObservationContext.Operation;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import dev.counters.spi.IdempotentBatches;
import dev.counters.spi.IdempotentBatches.AppliedBatch;
import dev.counters.strategy.BufferedSettings;
import io.github.resilience4j.circuitbreaker.CallNotPermittedException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lane of flushes: a thread that collects what is pending into a {@link Batch} and applies it in one transaction
 * under the batch's key, to a cell of its own. Lane 0 flushes every flush interval, past the threshold of pending
 * increments and for a full buffer; any lane flushes at once for a durable call. Several lanes make several flushes in
 * flight, on rows of their own, so that their commits share the database's syncs (group commit): a durable caller
 * joins the next flush at once instead of waiting for the one under way.
 *
 * <p>A batch stays in its lane, with the same key and deltas, until it is applied: a failed attempt is tried again at
 * once, and after three failures in a row the shared circuit breaker {@code counters-buffered} opens and spaces the
 * attempts with its exponential wait (one flush transaction per permission). Closing ends the loop with the last
 * drain, within the shutdown timeout.
 *
 * <p>No caller's code runs here: the futures it hands out are completed by {@link Completions}.
 */
final class Flusher {

    private static final Logger LOG = LoggerFactory.getLogger(Flusher.class);

    private static final long THRESHOLD_POLL_NANOS = Duration.ofMillis(5).toNanos();

    /** How often a lane other than 0 looks on its own whether a flush is due; a durable call wakes it at once. */
    private static final long IDLE_LANE_POLL_NANOS = Duration.ofSeconds(1).toNanos();

    /** How often an open circuit breaker is asked whether a flush may be tried again. */
    private static final long BREAKER_POLL_NANOS = Duration.ofMillis(100).toNanos();

    /** How long a lane waits before it looks again whether a failing batch has been applied. */
    private static final long HOLD_OFF_NANOS = Duration.ofMillis(1).toNanos();

    /** What the lanes of one strategy share: the buffers they drain, the breaker, and the other lanes. */
    record Shared(
            CircuitBreaker breaker,
            Completions completions,
            Slots slots,
            PendingKeys keys,
            DurableQueue durable,
            FlushEpoch epoch,
            Room room,
            FlushStats stats,
            List<Flusher> lanes) {}

    private final StrategyContext context;
    private final Shared shared;
    /** 0 flushes on the interval too; the others only when a flush is wanted at once. */
    private final int lane;
    /** The cell this lane's flushes add to: lane 0 atomic's, so that a counter can move between the two. */
    private final String cell;

    private final IdempotentBatches batchStore;
    /** Steady time for flush keys' timestamps, which must not jump with the wall clock. */
    private final Time time;

    private final UniqueIds ids;
    private final BufferedSettings settings;
    private final CircuitBreaker breaker;
    private final Completions completions;
    private final Slots slots;
    private final PendingKeys keys;
    private final DurableQueue durable;
    private final FlushEpoch epoch;
    private final Room room;
    private final FlushStats stats;
    /** The lane's thread, made when the lane is first wanted. */
    private volatile @Nullable Thread thread;

    // Written by the flusher thread only; volatile for readers.
    private volatile @Nullable Batch inFlight;
    /**
     * Completes when the batch in flight is settled: applied, or given up by closing. A flush call collected by another
     * lane waits for it, for it covers what this batch carries.
     */
    private volatile CompletableFuture<Void> settled = CompletableFuture.completedFuture(null);
    /** False while a flush attempt is under way: a durable caller wakes an idle lane. */
    private volatile boolean idle = true;
    /** The batch in flight may have been applied: an earlier attempt's outcome is unknown. */
    private boolean attemptInDoubt;
    /**
     * The batch in flight failed its last attempt: no lane starts a new batch until it is applied, so that an outage
     * holds one batch in flight, retried, and the callers behind it wait in the bounded queue, as with one lane.
     */
    private volatile boolean failing;

    private long batches;
    /** While the circuit breaker is open: when to ask it again. */
    private long nextAttemptNanos;

    private int consecutiveFailures;
    /** Flush keys are pruned after a successful flush once in a while, and after one that failed, at the next. */
    private boolean pruneDue;

    /** Set once the adds inside the gate are done: the flusher drains and stops. */
    private volatile boolean closing;

    private volatile long closeDeadlineNanos;
    /** What closing could not write, if anything; null while open or when it wrote everything. */
    private volatile @Nullable String unwrittenOnClose;

    /** Lane {@code lane}, which runs on a thread of its own (see {@link #run()}), started by {@link #start()}. */
    Flusher(StrategyContext context, BufferedSettings settings, Shared shared, int lane) {
        this.context = context;
        this.shared = shared;
        this.lane = lane;
        this.cell = lane == 0 ? Batch.CELL : Batch.CELL + "." + lane;
        this.batchStore = context.require(IdempotentBatches.class);
        this.time = context.time();
        this.ids = context.ids();
        this.settings = settings;
        this.breaker = shared.breaker();
        this.completions = shared.completions();
        this.slots = shared.slots();
        this.keys = shared.keys();
        this.durable = shared.durable();
        this.epoch = shared.epoch();
        this.room = shared.room();
        this.stats = shared.stats();
    }

    /** The circuit breaker the lanes of a strategy share: a flush counts, whichever lane made it. */
    static CircuitBreaker breaker(StrategyContext context) {
        return context.circuitBreaker(
                "",
                StrategyContext.breakerForOutages(3)
                        .ignoreExceptions(CounterOverflowException.class)
                        .build());
    }

    /** Starts the lane's thread, once. */
    synchronized void start() {
        if (thread == null) {
            Thread started = context.newThread(lane == 0 ? "flusher" : "flusher-" + lane, this::run);
            thread = started;
            started.start();
        }
    }

    /** Whether no flush attempt is under way in this lane. */
    boolean idle() {
        return idle;
    }

    /** Has the lane look at once whether a flush is due; a lane's thread starts when it is first wanted. */
    void wake() {
        start();
        LockSupport.unpark(thread);
    }

    /** The batch being written, whose deltas are no longer in the slots; null between flushes. */
    @Nullable
    Batch inFlight() {
        return inFlight;
    }

    /** The thread's loop: flushes when due, until closing; then the last drain. */
    void run() {
        long lastFlushNanos = time.nanoTime();
        while (!closing) {
            long now = time.nanoTime();
            boolean due = inFlight != null || !durable.isEmpty() || (lane == 0 && dueOnLaneZero(now - lastFlushNanos));
            if (due && now >= nextAttemptNanos) {
                lastFlushNanos = now;
                flushOnce();
            } else {
                long untilInterval = lastFlushNanos + settings.flushInterval().toNanos() - now;
                long untilRetry = nextAttemptNanos - now;
                // Lane 0 wakes at least every threshold poll to see whether the pending increments passed the
                // threshold; the others have no interval, and look when woken (a durable call) or for a retry.
                long wait = lane == 0
                        ? Math.min(thresholdPollNanos(), due ? untilRetry : untilInterval)
                        : (due ? untilRetry : IDLE_LANE_POLL_NANOS);
                LockSupport.parkNanos(Math.max(100_000, wait));
            }
        }
        drainOnClose();
    }

    /** The flushes only lane 0 makes: on the interval, past the threshold, for a full buffer or many keys. */
    private boolean dueOnLaneZero(long sinceLastFlushNanos) {
        return sinceLastFlushNanos >= settings.flushInterval().toNanos()
                || slots.pendingIncrements() >= settings.flushThreshold()
                || slots.isFull()
                || keys.size() >= settings.maxPendingCounters() / 2;
    }

    /**
     * How often the flusher looks whether the pending increments passed the threshold. A look sums every slot (a few
     * nanoseconds each), so with many slots it looks less often, and spends about 1 % of its time on it at most.
     */
    private long thresholdPollNanos() {
        return Math.max(THRESHOLD_POLL_NANOS, slots.size() * 500L);
    }

    /** One attempt: write the batch in flight, or make one from what is pending. */
    private void flushOnce() {
        idle = false;
        try {
            attempt();
        } finally {
            idle = true;
        }
    }

    private void attempt() {
        Batch batch = inFlight;
        if (batch == null) {
            if (anyLaneFailing()) {
                nextAttemptNanos = time.nanoTime() + HOLD_OFF_NANOS;
                return;
            }
            batch = collect();
            if (batch == null) {
                markUpToDate(); // nothing pending here
                return;
            }
        }
        if (batch.deltas().isEmpty() && batch.keyed().isEmpty()) {
            // Only callers waiting for what came before them, which is durable or in other lanes: nothing to write.
            inFlight = null;
            settled.complete(null);
            markUpToDate();
            completions.complete(batch.futures(), null);
            return;
        }
        Batch attempt = batch;
        long started = time.nanoTime();
        boolean applied = false;
        // Reads need not wait for the commit: they add the batch unless the key is recorded in what they read.
        try {
            AppliedBatch result =
                    context.observe(Operation.FLUSH, null, () -> breaker.executeSupplier(() -> apply(attempt)));
            keys.flushed(attempt.keyed(), result);
            // Applied now, or by the earlier attempt whose outcome was unknown: the key names these very deltas.
            inFlight = null;
            settled.complete(null);
            attemptInDoubt = false;
            failing = false;
            stats.flushed();
            markUpToDate();
            consecutiveFailures = 0;
            applied = true;
        } catch (CounterOverflowException e) {
            replaceInFlight(without(attempt, e));
            attemptInDoubt = false; // refused whole: no earlier attempt of this key can have been applied
        } catch (KeyTaken e) {
            // The key is recorded, but no attempt of ours can have recorded it: another batch's. Acknowledging would
            // lose these deltas, so they go again under a new key.
            stats.keyTaken();
            LOG.error(
                    "Flush key '{}' was recorded by another batch; writing the same deltas under a new key",
                    attempt.key());
            replaceInFlight(attempt.underNewKey(ids));
        } catch (CallNotPermittedException e) {
            nextAttemptNanos = time.nanoTime() + BREAKER_POLL_NANOS;
        } catch (RuntimeException e) {
            failing = true;
            // The outcome may be unknown: keep the same key and deltas for the retry, which makes it exactly once.
            if (!(e instanceof TransientStoreException)) {
                attemptInDoubt = true;
            }
            consecutiveFailures++;
            stats.failed(e);
            LOG.warn(
                    "Flush {} of {} counters failed (attempt {}), retrying with the same key: {}",
                    attempt.key(),
                    attempt.deltas().size(),
                    consecutiveFailures,
                    e.toString());
        } finally {
            stats.took(time.nanoTime() - started);
            room.wakeWaiting();
        }
        if (applied) {
            completions.complete(attempt.futures(), null);
            if (batches % 1_000 == 1) {
                pruneDue = true;
            }
            pruneKeys();
        }
    }

    private boolean anyLaneFailing() {
        for (Flusher other : shared.lanes()) {
            if (other.failing) {
                return true;
            }
        }
        return false;
    }

    /** Everything accepted so far is durable, unless pending or in another lane's flush. */
    private void markUpToDate() {
        for (Flusher other : shared.lanes()) {
            if (other.inFlight != null) {
                return;
            }
        }
        stats.upToDate();
    }

    /** The batch in flight under a new key: reads that saw the old key read again. */
    private void replaceInFlight(Batch batch) {
        epoch.begin();
        try {
            inFlight = batch;
        } finally {
            epoch.end();
        }
    }

    /**
     * One attempt to apply the batch; its outcome may be unknown if it fails. An {@link Error} from the store (a
     * driver built against another library version, a stack overflow) is such a failure too: a lane that died of it
     * would leave its durable callers waiting for ever, and the circuit breaker sees only exceptions.
     */
    private AppliedBatch apply(Batch attempt) {
        AppliedBatch applied;
        try {
            applied = batchStore.applyBatch(attempt.key(), cell, attempt.deltas(), attempt.keyed(), time.steady());
        } catch (Error e) {
            throw new CounterStoreException("The store failed with " + e, e);
        }
        if (!applied.applied() && !attemptInDoubt) {
            throw new KeyTaken(); // keys are unique: a store gone wrong, so a failure for the breaker
        }
        PendingKeys.reportMisused(attempt, applied);
        return applied;
    }

    /**
     * The batch without the overflowing counter, under a new key that names the new deltas. Nothing was written; the
     * counter's delta can never be applied, so it is dropped with its keys, and its durable callers refused.
     */
    private Batch without(Batch attempt, CounterOverflowException e) {
        CounterName overflowing = CounterName.of(e.counter());
        long dropped = attempt.deltas().getOrDefault(overflowing, 0L);
        LOG.error("Dropping the pending delta {} of counter '{}': {}", dropped, e.counter(), e.getMessage());
        Map<CounterName, Long> rest = new HashMap<>(attempt.deltas());
        rest.remove(overflowing);
        Map<String, KeyedDelta> keyed = new HashMap<>(attempt.keyed());
        keyed.entrySet()
                .removeIf(entry ->
                        entry.getValue().counter().equals(overflowing) && keys.drop(entry.getKey(), entry.getValue()));
        List<DurableIncrement> waiting = new ArrayList<>();
        List<DurableFuture> refused = new ArrayList<>();
        for (DurableIncrement increment : attempt.durable()) {
            if (increment.delta() != 0 && increment.name().equals(overflowing)) {
                refused.add(increment.done());
            } else {
                waiting.add(increment);
            }
        }
        completions.complete(refused, e);
        return Batch.of(ids, cell, rest, keyed, waiting);
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
        } catch (RuntimeException | Error e) { // not to end the lane
            LOG.warn(
                    "Pruning flush keys older than {} failed; trying again after the next flush: {}",
                    settings.keyRetention(),
                    e.toString());
        }
    }

    /** A flush key found recorded, though no attempt of ours can have recorded it. */
    private static final class KeyTaken extends RuntimeException {

        private static final long serialVersionUID = 1L;

        KeyTaken() {
            super(null, null, false, false);
        }
    }

    /** Moves everything pending into a new batch, evicting slots that stayed idle; null when there is nothing. */
    private @Nullable Batch collect() {
        Map<CounterName, Long> deltas = new HashMap<>();
        epoch.begin();
        try {
            // The waiting callers first: what was added before they asked is in the slots by now, so in this batch.
            List<DurableIncrement> waiting = afterOtherLanes(durable.drain());
            // Each key with its delta, in this batch (see PendingKeys).
            Map<String, KeyedDelta> keyed = keys.drainWith(() -> slots.drainInto(deltas));
            addDurable(deltas, waiting);
            deltas.values().removeIf(delta -> delta == 0);
            if (deltas.isEmpty() && waiting.isEmpty() && keyed.isEmpty()) {
                return null;
            }
            batches++;
            Batch batch = Batch.of(ids, cell, deltas, keyed, waiting);
            settled = new CompletableFuture<>();
            inFlight = batch;
            return batch;
        } finally {
            epoch.end();
        }
    }

    /**
     * The flush calls among the durable increments (delta 0) also wait for the batches the other lanes are writing,
     * which hold increments made before the call: each is answered once its own batch and those are settled, with the
     * first failure among them. Lanes collect one at a time (the epoch), so no other lane is between draining the
     * slots and publishing its batch.
     */
    private List<DurableIncrement> afterOtherLanes(List<DurableIncrement> waiting) {
        List<CompletableFuture<Void>> others = new ArrayList<>();
        for (Flusher other : shared.lanes()) {
            if (other != this && !other.settled.isDone()) {
                others.add(other.settled);
            }
        }
        if (others.isEmpty()) {
            return waiting;
        }
        List<DurableIncrement> chained = new ArrayList<>(waiting.size());
        for (DurableIncrement increment : waiting) {
            if (increment.delta() != 0) {
                chained.add(increment);
                continue;
            }
            DurableFuture own = new DurableFuture();
            List<CompletableFuture<Void>> all = new ArrayList<>(others);
            all.add(own);
            // Runs on whichever thread settles last; it only hands the caller's future to the completions.
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                    .whenComplete((done, failure) -> completions.complete(
                            List.of(increment.done()),
                            failure instanceof CompletionException wrapped && wrapped.getCause() != null
                                    ? wrapped.getCause()
                                    : failure));
            chained.add(new DurableIncrement(increment.name(), 0, own));
        }
        return chained;
    }

    /** Adds the durable increments' deltas; one past the 64-bit range is refused alone and whole, and leaves the list. */
    private void addDurable(Map<CounterName, Long> deltas, List<DurableIncrement> waiting) {
        for (Iterator<DurableIncrement> it = waiting.iterator(); it.hasNext(); ) {
            DurableIncrement increment = it.next();
            if (increment.delta() == 0) {
                continue;
            }
            try {
                deltas.put(
                        increment.name(), Math.addExact(deltas.getOrDefault(increment.name(), 0L), increment.delta()));
            } catch (ArithmeticException e) {
                it.remove(); // nothing of it is written
                completions.complete(
                        List.of(increment.done()), new CounterOverflowException(increment.name(), increment.delta()));
            }
        }
    }

    /**
     * Ends the loop, once no new slot, key or call can come: the last drain runs within the shutdown timeout, from
     * {@code deadlineNanos}. Every lane is told before any is waited for, so that they drain together.
     */
    void stop(long deadlineNanos) {
        closeDeadlineNanos = deadlineNanos;
        closing = true;
        LockSupport.unpark(thread); // null: never started, nothing to drain
    }

    /** Waits for the last drain; what could not be written, or null. */
    @Nullable
    String awaitStopped() {
        Thread thread = this.thread;
        if (thread == null) {
            return null;
        }
        try {
            thread.join(settings.shutdownTimeout().plusSeconds(5).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            // Stuck in the store past the timeout: its batch may yet be applied.
            unwrittenOnClose = "the flusher was still writing after the shutdown timeout of "
                    + settings.shutdownTimeout() + " (" + stats.lastError() + ")";
            LOG.error("Closing while the flusher is still writing: {}", unwrittenOnClose);
            slots.sealAll(); // held handles are refused all the same
            failWaiting(inFlight, true);
        }
        return unwrittenOnClose;
    }

    /**
     * The last drain: seals the slots, then flushes until nothing is pending or the shutdown timeout has passed. Then
     * every caller still waiting gets an answer, whether the store kept failing or not.
     */
    private void drainOnClose() {
        epoch.begin(); // the seal moves what the adders hold
        try {
            slots.sealAll();
        } finally {
            epoch.end();
        }
        long deadline = closeDeadlineNanos;
        while (hasPending()) {
            if (time.nanoTime() >= nextAttemptNanos) {
                flushOnce();
            } else if (time.nanoTime() < deadline) {
                LockSupport.parkNanos(Math.min(nextAttemptNanos - time.nanoTime(), 50_000_000));
            }
            if (time.nanoTime() >= deadline && hasPending()) {
                Batch batch = inFlight;
                long counters = (lane == 0 ? slots.pendingCounters() : 0)
                        + (batch == null ? 0 : batch.deltas().size());
                LOG.error(
                        "Closing with increments that could not be written within the shutdown timeout of {}:"
                                + " the pending deltas of {} counters are lost ({})",
                        settings.shutdownTimeout(),
                        counters,
                        stats.lastError());
                unwrittenOnClose = "the pending deltas of " + counters + " counters could not be written within the"
                        + " shutdown timeout of " + settings.shutdownTimeout() + " (" + stats.lastError() + ")";
                failWaiting(batch, attemptInDoubt);
                return;
            }
        }
    }

    /** Lane 0 drains what is pending; the others only their own batch. */
    private boolean hasPending() {
        return inFlight != null || (lane == 0 && (!durable.isEmpty() || keys.hasQueued() || slots.hasPending()));
    }

    /**
     * Fails every durable caller still waiting, once closing gave up: those of the batch in flight may have been
     * applied if an attempt's outcome is unknown, or one is under way; those still queued surely were not.
     */
    private void failWaiting(@Nullable Batch batch, boolean batchInDoubt) {
        String why = "the buffered strategy closed before it could be written: " + unwrittenOnClose;
        if (batch != null) {
            RuntimeException failure = batchInDoubt
                    ? new CounterStoreException(
                            "The flush carrying this increment may or may not have been applied; " + why, null)
                    : new TransientStoreException("Not applied; " + why, null);
            completions.complete(batch.futures(), failure);
            settled.completeExceptionally(failure);
        }
        // A queued increment was in no batch: surely not applied. A queued flush call covers the batches in flight,
        // whose outcome may be unknown: saying "not applied" of it could make its caller repeat what was written.
        List<DurableFuture> increments = new ArrayList<>();
        List<DurableFuture> flushCalls = new ArrayList<>();
        for (DurableIncrement queued : durable.drain()) {
            (queued.delta() == 0 ? flushCalls : increments).add(queued.done());
        }
        completions.complete(increments, new TransientStoreException("Not applied; " + why, null));
        completions.complete(
                flushCalls,
                batchInDoubt || anyOtherLaneInFlight()
                        ? new CounterStoreException(
                                "Not everything made before this flush was written, and a flush whose outcome is"
                                        + " unknown may have written some of it; " + why,
                                null)
                        : new TransientStoreException("Not applied; " + why, null));
    }

    private boolean anyOtherLaneInFlight() {
        for (Flusher other : shared.lanes()) {
            if (other != this && other.inFlight != null) {
                return true;
            }
        }
        return false;
    }
}
