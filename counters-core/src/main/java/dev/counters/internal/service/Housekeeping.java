package dev.counters.internal.service;

import dev.counters.internal.Time;
import dev.counters.spi.CounterStore;
import dev.counters.spi.Holds;
import dev.counters.spi.IdempotencyKeys;
import dev.counters.spi.Leases;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's upkeep of what it stores for callers: it forgets idempotency keys and bounded counters' settled
 * operations past the key retention, and runs
 * the other tasks it is given (removing windows past their retention). One process at a time does it, under a lease,
 * in batches of a bounded size, so that no large delete holds locks that writers wait for; each process tries every
 * interval, and whoever holds the lease works.
 */
public final class Housekeeping implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Housekeeping.class);

    static final String LEASE = "counters:housekeeping";
    /** Rows per delete: small enough that one delete never holds many locks for long. */
    static final int BATCH = 1_000;
    /** Batches per run, so that one run ends; a backlog is worked off over the next runs. */
    static final int MAX_BATCHES_PER_RUN = 100;

    private static final Duration LEASE_TIME = Duration.ofMinutes(5);
    /** How often steady time is put on the database's clock again: it drifts only with the ticker in between. */
    static final Duration CLOCK_SYNC = Duration.ofSeconds(10);
    /** Readings of the database's clock tried at start, one after another: a blip does not stop a start. */
    static final int CLOCK_ATTEMPTS_AT_START = 3;
    /** An offset of the JVM's clock from the database's beyond this is logged: windows and leases use that clock. */
    static final Duration CLOCK_WARNING = Duration.ofSeconds(1);

    private final @Nullable Leases leases;
    private final @Nullable IdempotencyKeys keys;
    private final @Nullable Holds holds;
    private final Time time;
    private final String owner;
    private final Duration keyRetention;
    private final List<Task> tasks;
    private final @Nullable ThreadFactory threads;
    private final boolean upkeep;
    private @Nullable ScheduledExecutorService scheduler;
    private volatile boolean started;
    private boolean closed;
    /** The offset last logged, null while the JVM's clock is within {@link #CLOCK_WARNING}. */
    private volatile @Nullable Duration reportedOffset;

    /**
     * Upkeep every interval (a tenth of the key retention, between 1 s and 5 min) on a thread of {@code threads},
     * from the first {@link #start()}: a service whose callers never use keys starts no thread.
     */
    public static Housekeeping of(
            CounterStore store,
            Time time,
            String owner,
            Duration keyRetention,
            List<Task> tasks,
            ThreadFactory threads) {
        return new Housekeeping(store, time, owner, keyRetention, tasks, threads);
    }

    /** More upkeep, run under the same lease after the keys. */
    @FunctionalInterface
    public interface Task {

        /**
         * One bounded run: removes what is due at {@code horizon}, the steady time now, and returns how many
         * counters or rows it removed.
         */
        int run(Instant horizon);
    }

    private Housekeeping(
            CounterStore store,
            Time time,
            String owner,
            Duration keyRetention,
            List<Task> tasks,
            @Nullable ThreadFactory threads) {
        this.leases = store.capability(Leases.class).orElse(null);
        this.keys = store.capability(IdempotencyKeys.class).orElse(null);
        this.holds = store.capability(Holds.class).orElse(null);
        this.time = time;
        this.owner = owner;
        this.keyRetention = keyRetention;
        this.tasks = List.copyOf(tasks);
        this.threads = threads;
        this.upkeep = leases != null && keys != null;
    }

    /** Starts the upkeep, once; a plain read after the first call. */
    public void start() {
        if (!started) {
            startOnce();
        }
    }

    @SuppressWarnings("FutureReturnValueIgnored") // runSafely catches its own failures; close shuts the executor
    private synchronized void startOnce() {
        ScheduledExecutorService running = upkeep ? scheduler() : null;
        if (started || running == null) {
            return;
        }
        long interval = Math.min(
                Math.max(keyRetention.dividedBy(10).toMillis(), 1_000),
                Duration.ofMinutes(5).toMillis());
        running.scheduleWithFixedDelay(this::runSafely, interval, interval, TimeUnit.MILLISECONDS);
        started = true;
    }

    /**
     * Puts steady time on the database's clock now and then every {@link #CLOCK_SYNC}, when the store tells its
     * clock: from the service's start, since every strategy's timestamps use it.
     *
     * @throws RuntimeException the store's exception when the database's clock cannot be read in
     *     {@link #CLOCK_ATTEMPTS_AT_START} attempts: a service that stamped and purged on its own clock, which may be
     *     hours off, could purge what guards another's retries
     */
    @SuppressWarnings("FutureReturnValueIgnored") // synchronizeClock catches its own failures
    public synchronized void keepClock() {
        if (!time.hasDatabaseClock()) {
            return;
        }
        for (int attempt = 1; ; attempt++) {
            try {
                time.synchronize().ifPresent(this::report);
                break;
            } catch (RuntimeException e) {
                if (attempt == CLOCK_ATTEMPTS_AT_START) {
                    throw e;
                }
            }
        }
        ScheduledExecutorService running = scheduler();
        if (running != null) {
            running.scheduleWithFixedDelay(
                    this::synchronizeClock, CLOCK_SYNC.toMillis(), CLOCK_SYNC.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private @Nullable ScheduledExecutorService scheduler() {
        if (scheduler == null && !closed && threads != null) {
            ThreadFactory factory = threads;
            scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = factory.newThread(task);
                thread.setName("counters-housekeeping-" + owner.substring(0, Math.min(8, owner.length())));
                return thread;
            });
        }
        return closed ? null : scheduler;
    }

    /** Reads the database's clock; a failure leaves steady time going on from the last reading, by the ticker. */
    void synchronizeClock() {
        try {
            time.synchronize().ifPresent(this::report);
        } catch (RuntimeException | Error e) { // a scheduled task that throws is never run again
            LOG.warn(
                    "Could not read the database's clock; steady time goes on from its last reading: {}", e.toString());
        }
    }

    private void report(Duration offset) {
        Duration reported = reportedOffset;
        if (offset.abs().compareTo(CLOCK_WARNING) <= 0) {
            if (reported != null) {
                LOG.info("This JVM's clock is within {} of the database's again", CLOCK_WARNING);
                reportedOffset = null;
            }
        } else if (reported == null || offset.minus(reported).abs().compareTo(CLOCK_WARNING) > 0) {
            LOG.warn(
                    "This JVM's clock is {} {} the database's. Purges and the timestamps that guard retries follow"
                            + " the database's clock, but the window an increment lands in and lease expiries follow this"
                            + " one: a windowed increment is refused while it lags by more than half its windows' retention,"
                            + " and a lease (a node id on H2, a recount) may be taken over early by a process whose clock is"
                            + " ahead of its holder's by more than the lease's time. Have this host's clock synchronised"
                            + " (NTP).",
                    offset.abs(),
                    offset.isNegative() ? "behind" : "ahead of");
            reportedOffset = offset;
        }
    }

    /** Upkeep that runs only when {@link #runOnce()} is called: for tests. */
    static Housekeeping manual(CounterStore store, Time time, String owner, Duration keyRetention, List<Task> tasks) {
        return new Housekeeping(store, time, owner, keyRetention, tasks, null);
    }

    private void runSafely() {
        try {
            runOnce();
        } catch (RuntimeException | Error e) { // a scheduled task that throws is never run again
            LOG.warn("Housekeeping failed; it runs again at the next interval: {}", e.toString());
        }
    }

    /**
     * One run: takes the lease, or leaves the work to its holder, then forgets keys recorded before the retention, a
     * batch at a time, and runs the other tasks.
     *
     * @return how many keys, counters or rows it removed; -1 if another process holds the lease
     */
    int runOnce() {
        if (leases == null || keys == null) {
            return 0;
        }
        Instant now = time.now();
        if (!leases.tryLease(LEASE, owner, now.plus(LEASE_TIME), now)) {
            return -1;
        }
        try {
            // Horizons on steady time, the database's clock read just now: keys are stamped on it, and windows end on
            // it unless their writer's clock lags (then it refuses them), whatever this JVM's clock says.
            synchronizeClock();
            Instant appliedBefore = time.steady().minus(keyRetention);
            int removed = 0;
            for (int batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
                int pruned = keys.pruneKeys(appliedBefore, BATCH);
                removed += pruned;
                if (pruned < BATCH) {
                    break;
                }
            }
            // Bounded counters' settled operations, under the same retention; open holds are never pruned.
            for (int batch = 0; holds != null && batch < MAX_BATCHES_PER_RUN; batch++) {
                int pruned = holds.pruneOperations(appliedBefore, BATCH);
                removed += pruned;
                if (pruned < BATCH) {
                    break;
                }
            }
            for (Task task : tasks) {
                removed += task.run(time.steady());
            }
            return removed;
        } finally {
            leases.releaseLease(LEASE, owner);
        }
    }

    @Override
    public void close() {
        ScheduledExecutorService running;
        synchronized (this) {
            closed = true;
            running = scheduler;
        }
        if (running != null) {
            running.shutdownNow();
            try {
                running.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
