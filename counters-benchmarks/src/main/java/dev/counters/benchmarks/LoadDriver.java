package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Runs a workload from many threads for a while and measures it: a warm-up whose operations are not timed, then a
 * measurement window, then the exactness check. Every increment that returned normally is acknowledged; the stored
 * totals must equal the acknowledged counts exactly.
 */
final class LoadDriver {

    private enum Phase {
        WARMUP,
        MEASURE,
        STOP
    }

    /** The most connections virtual callers share. */
    static final int MAX_POOL = 64;

    /**
     * This JVM's CPU time: the client's cost per increment (the servers run in processes of their own, except H2,
     * whose cost it includes).
     */
    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private LoadDriver() {}

    static LoadResult run(
            BenchDatabase database, Workload.Kind kind, int threads, int counters, Duration warmup, Duration duration)
            throws Exception {
        return run(database, kind, threads, false, counters, warmup, duration);
    }

    /**
     * {@code threads} callers, on virtual threads if {@code virtual} (as a Boot 4 web server with virtual threads
     * gives); virtual callers share a pool of at most {@value #MAX_POOL} connections, as an application's would.
     */
    static LoadResult run(
            BenchDatabase database,
            Workload.Kind kind,
            int threads,
            boolean virtual,
            int counters,
            Duration warmup,
            Duration duration)
            throws Exception {
        StatementCounter statements = new StatementCounter();
        int poolSize = (virtual ? Math.min(threads, MAX_POOL) : threads) + 8;
        return onPools(database, statements, poolSize, threads, counters, setup -> {
            Workload workload = kind.opener().open(setup);
            LongAdder[] acknowledged = new LongAdder[counters];
            for (int i = 0; i < counters; i++) {
                acknowledged[i] = new LongAdder();
            }
            AtomicLong failures = new AtomicLong();
            Measurement measurement =
                    measure(threads, virtual, warmup, duration, statements, workload::flushes, measured -> {
                        int counter =
                                counters == 1 ? 0 : ThreadLocalRandom.current().nextInt(counters);
                        try {
                            workload.increment(counter);
                            acknowledged[counter].increment();
                            return true;
                        } catch (Exception e) {
                            failures.incrementAndGet();
                            return false;
                        }
                    });
            workload.close();
            long[] totals = workload.totals();
            boolean exact = true;
            for (int i = 0; i < counters; i++) {
                exact &= totals[i] == acknowledged[i].sum();
            }
            return measurement.result(database, kind.name(), threads, virtual, counters, failures.get(), exact);
        });
    }

    /** What runs on a {@link Workload.Setup}. */
    @FunctionalInterface
    interface OnSetup<T> {
        T run(Workload.Setup setup) throws Exception;
    }

    /**
     * Runs {@code work} on a setup of new pools of {@code database} (the first of {@code poolSize} connections), whose
     * statements {@code statements} counts, then closes every pool it opened.
     */
    static <T> T onPools(
            BenchDatabase database,
            StatementCounter statements,
            int poolSize,
            int callers,
            int counters,
            OnSetup<T> work)
            throws Exception {
        List<HikariDataSource> pools = new ArrayList<>();
        try {
            IntFunction<DataSource> newPool = size -> {
                HikariDataSource pool = database.pool(size);
                pools.add(pool);
                return statements.wrap(pool);
            };
            return work.run(
                    new Workload.Setup(newPool.apply(poolSize), database, counters, callers, poolSize, newPool));
        } finally {
            if (database == BenchDatabase.H2 && !pools.isEmpty()) {
                emptyH2(pools.getFirst());
            }
            pools.forEach(HikariDataSource::close);
        }
    }

    /**
     * Drops what a point left in the in-memory H2 database, which lives as long as the JVM: its tables and rows would
     * slow every later point down, and ratios would then depend on the order.
     */
    private static void emptyH2(DataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement drop = connection.createStatement()) {
            drop.execute("DROP ALL OBJECTS");
        }
    }

    static LoadResult runSequence(
            BenchDatabase database, SequenceWorkload.Kind kind, int threads, Duration warmup, Duration duration)
            throws Exception {
        StatementCounter statements = new StatementCounter();
        try (HikariDataSource pool = database.pool(threads + 8)) {
            SequenceWorkload workload = kind.opener().open(statements.wrap(pool), database);
            NumberLog numbers = new NumberLog();
            AtomicLong failures = new AtomicLong();
            Measurement measurement =
                    measure(threads, false, warmup, duration, statements, () -> Flushes.NONE, measured -> {
                        try {
                            numbers.add(workload.next());
                            return true;
                        } catch (Exception e) {
                            failures.incrementAndGet();
                            return false;
                        }
                    });
            workload.close();
            return measurement.result(
                    database, kind.name(), threads, false, 1, failures.get(), numbers.uniqueAndIncreasing());
        }
    }

    /** One operation, {@code measured} or in the warm-up; false when it failed. */
    @FunctionalInterface
    interface Operation {
        boolean run(boolean measured);
    }

    record Measurement(
            long operations,
            double seconds,
            Histogram latency,
            double statementsPerOperation,
            double cpuMicrosPerOperation,
            Flushes flushes) {

        LoadResult result(
                BenchDatabase database,
                String workload,
                int threads,
                boolean virtual,
                int counters,
                long failures,
                boolean correct) {
            return new LoadResult(
                    database,
                    workload,
                    threads,
                    virtual,
                    counters,
                    operations,
                    seconds,
                    latency,
                    statementsPerOperation,
                    cpuMicrosPerOperation,
                    failures,
                    correct,
                    flushes);
        }
    }

    /** Runs {@code operation} from {@code threads} callers; {@code flushes} says what a buffered workload flushed. */
    static Measurement measure(
            int threads,
            boolean virtual,
            Duration warmup,
            Duration duration,
            StatementCounter statements,
            Supplier<Flushes> flushes,
            Operation operation)
            throws InterruptedException {
        AtomicReference<Phase> phase = new AtomicReference<>(Phase.WARMUP);
        List<Histogram> histograms = new ArrayList<>();
        LongAdder measured = new LongAdder();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Histogram histogram = new Histogram(Duration.ofMinutes(1).toNanos(), 3);
            histograms.add(histogram);
            workers.add((virtual ? Thread.ofVirtual() : Thread.ofPlatform())
                    .name("bench-" + t)
                    .start(() -> {
                        Phase current;
                        while ((current = phase.get()) != Phase.STOP) {
                            long started = System.nanoTime();
                            boolean ok = operation.run(current == Phase.MEASURE);
                            long took = System.nanoTime() - started;
                            if (ok && current == Phase.MEASURE && phase.get() == Phase.MEASURE) {
                                histogram.recordValue(Math.min(took, histogram.getHighestTrackableValue()));
                                measured.increment();
                            }
                        }
                    }));
        }
        Thread.sleep(warmup.toMillis());
        long statementsBefore = statements.count();
        long cpuBefore = PROCESS.getProcessCpuTime();
        Flushes flushesBefore = flushes.get();
        long started = System.nanoTime();
        phase.set(Phase.MEASURE);
        Thread.sleep(duration.toMillis());
        // A loaded machine can starve a slow workload of its first measured operation: wait a little longer.
        for (int i = 0; i < 50 && measured.sum() == 0; i++) {
            Thread.sleep(100);
        }
        phase.set(Phase.STOP);
        double seconds = (System.nanoTime() - started) / 1e9;
        long statementsDuring = statements.count() - statementsBefore;
        long cpuDuring = PROCESS.getProcessCpuTime() - cpuBefore;
        Flushes flushesDuring = flushes.get().minus(flushesBefore);
        for (Thread worker : workers) {
            worker.join();
        }
        Histogram latency = new Histogram(Duration.ofMinutes(1).toNanos(), 3);
        histograms.forEach(latency::add);
        long operations = measured.sum();
        return new Measurement(
                operations,
                seconds,
                latency,
                operations == 0 ? Double.NaN : (double) statementsDuring / operations,
                operations == 0 ? Double.NaN : cpuDuring / 1e3 / operations,
                flushesDuring);
    }
}
