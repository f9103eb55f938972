package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Runs a workload from many threads for a while and measures it: a warm-up whose operations are not timed, then a
 * measurement window, then the exactness check. Every increment that returned normally is acknowledged; the stored
 * totals must equal the acknowledged counts exactly.
 */
final class LoadDriver {

    private enum Phase { WARMUP, MEASURE, STOP }

    private LoadDriver() {
    }

    static LoadResult run(BenchDatabase database, Workload.Kind kind, int threads, int counters, Duration warmup,
            Duration duration) throws Exception {
        StatementCounter statements = new StatementCounter();
        try (HikariDataSource pool = database.pool(threads + 8)) {
            DataSource dataSource = statements.wrap(pool);
            Workload workload = kind.opener().open(dataSource, database, counters);
            LongAdder[] acknowledged = new LongAdder[counters];
            for (int i = 0; i < counters; i++) {
                acknowledged[i] = new LongAdder();
            }
            AtomicLong failures = new AtomicLong();
            Measurement measurement = measure(threads, warmup, duration, statements, () -> {
                int counter = counters == 1 ? 0 : ThreadLocalRandom.current().nextInt(counters);
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
            return measurement.result(database, kind.name(), threads, counters, failures.get(), exact);
        }
    }

    static LoadResult runSequence(BenchDatabase database, SequenceWorkload.Kind kind, int threads, Duration warmup,
            Duration duration) throws Exception {
        StatementCounter statements = new StatementCounter();
        try (HikariDataSource pool = database.pool(threads + 8)) {
            SequenceWorkload workload = kind.opener().open(statements.wrap(pool), database);
            NumberLog numbers = new NumberLog();
            AtomicLong failures = new AtomicLong();
            Measurement measurement = measure(threads, warmup, duration, statements, () -> {
                try {
                    numbers.add(workload.next());
                    return true;
                } catch (Exception e) {
                    failures.incrementAndGet();
                    return false;
                }
            });
            workload.close();
            return measurement.result(database, kind.name(), threads, 1, failures.get(), numbers.uniqueAndIncreasing());
        }
    }

    /** One operation; false when it failed. */
    @FunctionalInterface
    private interface Operation {
        boolean run();
    }

    private record Measurement(long operations, double seconds, Histogram latency, double statementsPerOperation) {

        LoadResult result(BenchDatabase database, String workload, int threads, int counters, long failures,
                boolean correct) {
            return new LoadResult(database, workload, threads, counters, operations, seconds, latency,
                    statementsPerOperation, failures, correct);
        }
    }

    private static Measurement measure(int threads, Duration warmup, Duration duration, StatementCounter statements,
            Operation operation) throws InterruptedException {
        AtomicReference<Phase> phase = new AtomicReference<>(Phase.WARMUP);
        List<Histogram> histograms = new ArrayList<>();
        LongAdder measured = new LongAdder();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Histogram histogram = new Histogram(Duration.ofMinutes(1).toNanos(), 3);
            histograms.add(histogram);
            workers.add(Thread.ofPlatform().name("bench-" + t).start(() -> {
                Phase current;
                while ((current = phase.get()) != Phase.STOP) {
                    long started = System.nanoTime();
                    boolean ok = operation.run();
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
        for (Thread worker : workers) {
            worker.join();
        }
        Histogram latency = new Histogram(Duration.ofMinutes(1).toNanos(), 3);
        histograms.forEach(latency::add);
        long operations = measured.sum();
        return new Measurement(operations, seconds, latency,
                operations == 0 ? Double.NaN : (double) statementsDuring / operations);
    }
}
