package dev.counters.internal.strategy;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.counters.CounterName;
import dev.counters.CounterOverflowException;
import dev.counters.CounterStoreException;
import dev.counters.IdempotencyKey;
import dev.counters.StoreUnavailableException;
import dev.counters.StrategyStatistics;
import dev.counters.TransientStoreException;
import dev.counters.internal.Time;
import dev.counters.internal.UniqueIds;
import dev.counters.observation.CountersObservationContext.Operation;
import dev.counters.spi.DeltaLog;
import dev.counters.spi.Leases;
import dev.counters.strategy.DeltaLogSettings;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A log of deltas (the delta table of "Poor man's distributed counter"): each increment appends a row with a unique id
 * (concurrent increments of a counter in one JVM share a row), and a recount folds the deltas into the counter's base
 * value, in one transaction: it reads the unfolded deltas, sums them here, and has the store add the sum and mark
 * exactly those deltas folded, or do nothing if a concurrent recount got there first. Exact and idempotent by
 * construction: an append retried with the same id after an unknown outcome writes at most once, and a recount is all
 * or nothing, so rerunning one that failed halfway is safe.
 *
 * <p>A recount is due when the folded value is older than a threshold or enough deltas piled up; at most one runs
 * per counter in this JVM, and a lease keeps other nodes from running theirs at the same time.
 *
 * <p>Why a retry is recognised: a folded delta stays as a tombstone for {@code folded-retention} after its row's time
 * (the first attempt's), and an append starts no attempt once half of that has passed after an attempt with an
 * unknown outcome. An attempt must also end before the tombstone goes, or a statement the server held (a metadata
 * lock, a Galera backup lock) could insert the delta again after a retry was acknowledged, folded and purged: the
 * store bounds the statement (the JDBC store cancels an append after 4 s, an unknown outcome). So the last attempt
 * ends by {@code folded-retention / 2} plus the wait for a connection plus that bound, which must stay below
 * {@code folded-retention} on the purging node's clock: with the default 10 minutes, a margin of almost 5 minutes.
 */
public final class DeltaLogStrategy extends CellStrategy {

    private static final Logger LOG = LoggerFactory.getLogger(DeltaLogStrategy.class);
    private static final Duration RECOUNT_LEASE = Duration.ofSeconds(30);
    /** The most deltas one recount folds: a bounded transaction; a larger backlog takes several recounts. */
    static final int MAX_FOLD = 10_000;

    private final StrategyContext context;
    private final DeltaLog log;
    private final Leases leases;
    private final DeltaLogSettings settings;
    /** Steady time for the timestamps retries depend on: they must not jump with the wall clock. */
    private final Time time;

    private final UniqueIds ids;
    private final String owner;
    private final LongAdder conflicts = new LongAdder();
    private final Cache<CounterName, Tracker> trackers =
            Caffeine.newBuilder().maximumSize(100_000).build();
    private final ExecutorService recounter;

    /** This JVM's view of a counter's log: appends since its last recount, and whether one is running. */
    private final class Tracker {
        final AtomicLong appends = new AtomicLong();
        final AtomicBoolean running = new AtomicBoolean();
        volatile Instant lastRecount = time.now();
    }

    public DeltaLogStrategy(StrategyContext context, DeltaLogSettings settings) {
        // Any store failure is retried: the retry reuses the delta's id, so even an unknown outcome is safe to repeat.
        // An unreachable store already cost the pool's connection timeout: fail fast, nothing was written. This is the
        // append's only loop: append-attempts attempts of at most two statements each (the store never repeats one).
        super(
                context,
                RetryConfig.custom()
                        .maxAttempts(settings.appendAttempts())
                        .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(
                                Duration.ofMillis(10), 2.0, 0.5, Duration.ofSeconds(1)))
                        .retryExceptions(CounterStoreException.class)
                        .ignoreExceptions(RetryWindowClosed.class, StoreUnavailableException.class)
                        .build());
        this.context = context;
        this.log = context.require(DeltaLog.class);
        this.leases = context.require(Leases.class);
        this.settings = settings;
        this.time = context.time();
        this.ids = context.ids();
        this.owner = context.instanceId();
        this.recounter = Executors.newSingleThreadExecutor(task -> context.newThread("recount", task));
    }

    @Override
    public StrategyStatistics.Activity activity() {
        return new StrategyStatistics.Activity(conflicts.sum(), retries(), 0, null);
    }

    /**
     * Appends the delta, combined with the concurrent increments of the same counter in this JVM into one row (see
     * {@link Combiner}): each caller returns when the row carrying its delta has committed.
     */
    @Override
    public void increment(CounterName name, long delta) {
        addCombined(name, DELTAS, delta, false);
    }

    /** The combiners' key for a counter's appends (no cell is written by them). */
    private static final String DELTAS = "deltas";

    /** One row for a batch: its sum is fixed before the first attempt, so a retry carries the same delta and id. */
    @Override
    Combiner.Write writer(CounterName name, String cell) {
        return batch -> append(name, batch);
    }

    private long append(CounterName name, Combiner.Batch batch) {
        Append append = new Append(name, batch.takeQueued());
        retrying(append::attempt); // after an attempt with an unknown outcome, any failure is unknown (Retries)
        // Once per row, by the writer: the callers it carried need not look the tracker up again.
        Tracker tracker = trackers.get(name, key -> new Tracker());
        tracker.appends.incrementAndGet();
        recountIfDue(name, tracker);
        return 0L;
    }

    /**
     * One increment's appends. Its id stays the same across retries, so an attempt whose outcome was unknown is
     * recognised; a row already under the id counts as that attempt only if one was made and the row holds this delta.
     */
    private final class Append {

        private final CounterName name;
        private final long delta;
        /** Rows written by this append carry this time: the retry window and the purge horizon are measured from it. */
        private final Instant first = time.steady();

        private String id = ids.next();
        /** An attempt under the current id ended with an unknown outcome: it may have been applied. */
        private volatile boolean maybeApplied;

        Append(CounterName name, long delta) {
            this.name = name;
            this.delta = delta;
        }

        /**
         * One statement or two ({@link DeltaLog#appendDelta}), never repeated here: a taken id is an
         * attempt that appended nothing ({@link IdTaken}), and the strategy's retry makes the next under a new id.
         */
        boolean attempt() {
            // A retry is safe only while the delta, if an earlier attempt did append it, cannot have been purged.
            if (maybeApplied
                    && time.steady()
                            .isAfter(first.plus(settings.foldedRetention().dividedBy(2)))) {
                throw new RetryWindowClosed(name);
            }
            OptionalLong stored;
            try {
                stored = log.appendDelta(name, id, delta, first);
            } catch (CounterStoreException e) {
                if (!(e instanceof TransientStoreException)) {
                    maybeApplied = true;
                }
                throw e;
            }
            if (stored.isEmpty() || (maybeApplied && stored.getAsLong() == delta)) {
                return true; // appended now, or by the earlier attempt whose outcome was unknown
            }
            // Somebody else's row: no attempt under this id was applied, or the row would hold this delta.
            String taken = id;
            id = ids.next();
            maybeApplied = false;
            throw taken(name, taken, stored.getAsLong(), delta);
        }
    }

    /** Counts and logs an id found holding another delta: ids are unique, so this is a bug somewhere. */
    private IdTaken taken(CounterName name, String id, long stored, long delta) {
        conflicts.increment();
        LOG.error(
                "Delta id '{}' of counter '{}' is taken by another delta ({}, not {}); appending under a new id",
                id,
                name,
                stored,
                delta);
        return new IdTaken(name, id);
    }

    /** An append found its id holding another delta: nothing was appended, and a retry goes under a new id. */
    private static final class IdTaken extends TransientStoreException {

        private static final long serialVersionUID = 1L;

        IdTaken(CounterName name, String id) {
            super(
                    "Delta id '" + id + "' of counter '" + name + "' is taken by another delta; nothing was appended",
                    null);
        }
    }

    /**
     * An append under a new id in the key's transaction: the key makes a repeat safe, so the id need not outlive the
     * call. A taken id appends nothing and rolls the key back, for the keyed retry to repeat under a new id. The
     * value, when asked, is read in the same transaction: cells and unfolded deltas.
     */
    @Override
    KeyedIncrements.KeyedCellWrite keyedWrite(CounterName name, long delta) {
        return (transaction, needsValue) -> {
            DeltaLog appended = transaction.capability(DeltaLog.class).orElseThrow();
            String id = ids.next();
            OptionalLong stored = appended.appendDelta(name, id, delta, time.steady());
            if (stored.isPresent()) { // rolls the key back with it; the keyed retry appends under a new id
                throw taken(name, id, stored.getAsLong(), delta);
            }
            return needsValue
                    ? OptionalLong.of(transaction.getAll(List.of(name)).getOrDefault(name, 0L))
                    : OptionalLong.empty();
        };
    }

    @Override
    public long increment(CounterName name, long delta, IdempotencyKey key, boolean needsValue) {
        long value = super.increment(name, delta, key, needsValue);
        Tracker tracker = trackers.get(name, ignored -> new Tracker());
        tracker.appends.incrementAndGet();
        recountIfDue(name, tracker);
        return value;
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        increment(name, delta);
        return CounterStrategy.readAfterTaken(name, delta, () -> getExact(name)); // the delta is in the log now
    }

    /** Cells and unfolded deltas, as every strategy reads a counter; with {@code read-folded}, the cells alone. */
    @Override
    public long get(CounterName name) {
        if (!settings.readFolded()) {
            return super.get(name);
        }
        recountIfDue(name, trackers.get(name, key -> new Tracker()));
        // the value as of the last recount
        return Objects.requireNonNull(folded(List.of(name)).get(name), "folded answers every name");
    }

    @Override
    public long getExact(CounterName name) {
        return super.get(name);
    }

    @Override
    public Map<CounterName, Long> getAll(Collection<CounterName> names) {
        return settings.readFolded() ? folded(names) : super.getAll(names);
    }

    private Map<CounterName, Long> folded(Collection<CounterName> names) {
        Map<CounterName, Long> stored = retrying(() -> log.getFolded(names));
        Map<CounterName, Long> values = new LinkedHashMap<>();
        names.forEach(name -> values.put(name, stored.getOrDefault(name, 0L)));
        return values;
    }

    private void recountIfDue(CounterName name, Tracker tracker) {
        boolean due = tracker.appends.get() >= settings.recountAtDeltas()
                || !tracker.lastRecount.plus(settings.recountAfter()).isAfter(time.now());
        if (due && tracker.running.compareAndSet(false, true)) {
            try {
                recounter.execute(() -> recount(name, tracker));
            } catch (RuntimeException e) {
                tracker.running.set(false); // closing
            }
        }
    }

    private void recount(CounterName name, Tracker tracker) {
        String lease = "recount:" + name.value();
        Instant now = time.now();
        try {
            if (leases.tryLease(lease, owner, now.plus(RECOUNT_LEASE), now)) {
                try {
                    tracker.appends.set(0);
                    context.observe(Operation.RECOUNT, name, () -> {
                        fold(name);
                        return null;
                    });
                } finally {
                    leases.releaseLease(lease, owner);
                }
            }
            tracker.lastRecount = time.now();
        } catch (RuntimeException e) {
            LOG.warn("Recount of counter '{}' failed; it will be retried: {}", name, e.toString());
        } finally {
            tracker.running.set(false);
        }
    }

    /**
     * Folds up to {@link #MAX_FOLD} unfolded deltas into the counter's cell. The store applies the sum only if every
     * one of those deltas is still unfolded, so a recount racing another (whose lease expired) cannot count a delta
     * twice: one of them writes nothing, and the next recount reads again.
     */
    private void fold(CounterName name) {
        Map<String, Long> deltas = log.unfoldedDeltas(name, MAX_FOLD);
        long sum = 0;
        for (long delta : deltas.values()) {
            try {
                sum = Math.addExact(sum, delta);
            } catch (ArithmeticException e) {
                throw new CounterOverflowException(name, delta);
            }
        }
        Instant purgeBefore = time.steady().minus(settings.foldedRetention());
        if (!log.foldDeltas(name, AtomicStrategy.CELL, deltas.keySet(), sum, purgeBefore)) {
            conflicts.increment();
        }
    }

    /** An append stopped retrying: too long has passed to be sure a retry would be recognised. */
    private static final class RetryWindowClosed extends CounterStoreException {

        private static final long serialVersionUID = 1L;

        RetryWindowClosed(CounterName name) {
            super(
                    "Gave up appending a delta to counter '" + name + "': an earlier attempt may have been applied,"
                            + " and too much time has passed to retry it safely",
                    null);
        }
    }

    @Override
    public void close() {
        recounter.shutdown();
        try {
            recounter.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
