package dev.counters;

import dev.counters.internal.Time;
import dev.counters.spi.CounterStore;
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
 * The service's upkeep of what it stores for callers: it forgets idempotency keys past the key retention, and runs
 * the other tasks it is given (removing windows past their retention). One process at a time does it, under a lease,
 * in batches of a bounded size, so that no large delete holds locks that writers wait for; each process tries every
 * interval, and whoever holds the lease works.
 */
final class Housekeeping implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);

    static final String LEASE = "counters:housekeeping";
    /** Rows per delete: small enough that one delete never holds many locks for long. */
    static final int BATCH = 1_000;
    /** Batches per run, so that one run ends; a backlog is worked off over the next runs. */
    static final int MAX_BATCHES_PER_RUN = 100;
    private static final Duration LEASE_TIME = Duration.ofMinutes(5);

    private final CounterStore.@Nullable Leases leases;
    private final CounterStore.@Nullable IdempotencyKeys keys;
    private final Time time;
    private final String owner;
    private final Duration keyRetention;
    private final List<Task> tasks;
    private final @Nullable ThreadFactory threads;
    private @Nullable ScheduledExecutorService scheduler;
    private volatile boolean started;
    private boolean closed;

    /**
     * Upkeep every interval (a tenth of the key retention, between 1 s and 5 min) on a thread of {@code threads},
     * from the first {@link #start()}: a service whose callers never use keys starts no thread.
     */
    static Housekeeping of(CounterStore store, Time time, String owner, Duration keyRetention, List<Task> tasks,
            ThreadFactory threads) {
        return new Housekeeping(store, time, owner, keyRetention, tasks, threads);
    }

    /** More upkeep, run under the same lease after the keys. */
    @FunctionalInterface
    interface Task {

        /**
         * One bounded run: removes what is due at {@code horizon}, the steady time now, and returns how many
         * counters or rows it removed.
         */
        int run(Instant horizon);
    }

    private Housekeeping(CounterStore store, Time time, String owner, Duration keyRetention, List<Task> tasks,
            @Nullable ThreadFactory threads) {
        this.leases = store.capability(CounterStore.Leases.class).orElse(null);
        this.keys = store.capability(CounterStore.IdempotencyKeys.class).orElse(null);
        this.time = time;
        this.owner = owner;
        this.keyRetention = keyRetention;
        this.tasks = List.copyOf(tasks);
        this.threads = leases == null || keys == null ? null : threads;
    }

    /** Starts the upkeep, once; a plain read after the first call. */
    void start() {
        if (!started) {
            startOnce();
        }
    }

    private synchronized void startOnce() {
        if (started || closed || threads == null) {
            return;
        }
        ThreadFactory factory = threads;
        scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = factory.newThread(task);
            thread.setName("counters-housekeeping-" + owner.substring(0, Math.min(8, owner.length())));
            return thread;
        });
        long interval = Math.clamp(keyRetention.dividedBy(10).toMillis(), 1_000, Duration.ofMinutes(5).toMillis());
        scheduler.scheduleWithFixedDelay(this::runSafely, interval, interval, TimeUnit.MILLISECONDS);
        started = true;
    }

    /** Upkeep that runs only when {@link #runOnce()} is called: for tests. */
    static Housekeeping manual(CounterStore store, Time time, String owner, Duration keyRetention,
            List<Task> tasks) {
        return new Housekeeping(store, time, owner, keyRetention, tasks, null);
    }

    private void runSafely() {
        try {
            runOnce();
        } catch (RuntimeException e) {
            log.warn("Housekeeping failed; it runs again at the next interval: {}", e.toString());
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
            // Keys are stamped with steady time, which a clock set back cannot turn into an early prune.
            Instant appliedBefore = time.steady().minus(keyRetention);
            int removed = 0;
            for (int batch = 0; batch < MAX_BATCHES_PER_RUN; batch++) {
                int pruned = keys.pruneKeys(appliedBefore, BATCH);
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
