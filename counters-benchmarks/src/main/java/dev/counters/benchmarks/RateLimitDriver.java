package dev.counters.benchmarks;

import dev.counters.testing.AdmissionLog;
import dev.counters.testing.AdmissionLog.Admission;
import dev.counters.testing.Admissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;

/**
 * Runs a rate limiter from many threads in this process, as {@link LoadDriver} runs a counter: a warm-up on keys of
 * its own, then a measured window in which every admission's span is kept, so that the run ends with the bound check:
 * the most admissions in any span of the period (of a fixed window: in one window) against what the limit allows.
 */
final class RateLimitDriver {

    private RateLimitDriver() {}

    /**
     * One measured run, or a run of {@code processes} processes ({@link RateLimitProcesses}).
     *
     * @param keys the keys, taken uniformly at random ({@code hot}, or {@code k0} … )
     * @param most the most admissions seen in any span of the period (fixed windows: in a window); -1 with many keys
     * @param bound the most the limit allows there
     * @param latency null for a run of processes
     */
    record Result(
            BenchDatabase database,
            String workload,
            String scenario,
            int processes,
            int threads,
            int keys,
            RateLimitWorkload.Limit limit,
            long decisions,
            double seconds,
            long admitted,
            long errors,
            long most,
            long bound,
            Histogram latency,
            double statementsPerDecision) {

        double decisionsPerSecond() {
            return decisions / seconds;
        }

        long refused() {
            return decisions - admitted;
        }

        /** Admissions beyond the bound in the worst span (window): 0 when exact. */
        long overAdmitted() {
            return Math.max(0, most - bound);
        }

        /**
         * Admitted ÷ what the limit lets through over the run: its rate over the run plus the full bucket (or the
         * window) it starts with.
         */
        double shareOfLimit() {
            return admitted / (limit.permits() * (seconds / (limit.period().toNanos() / 1e9) + 1));
        }

        double micros(double percentile) {
            return latency == null ? Double.NaN : latency.getValueAtPercentile(percentile) / 1_000.0;
        }

        String line() {
            return String.format(
                    Locale.ROOT,
                    "%-16s %-12s %-10s processes=%d threads=%3d keys=%,6d limit=%,d/%s %,10.0f decisions/s"
                            + " admitted=%,d refused=%,d errors=%,d most=%,d bound=%,d p50=%.1fµs p99=%.1fµs"
                            + " %.2f stmts/decision %s",
                    database,
                    workload,
                    scenario,
                    processes,
                    threads,
                    keys,
                    limit.permits(),
                    limit.period(),
                    decisionsPerSecond(),
                    admitted,
                    refused(),
                    errors,
                    most,
                    bound,
                    micros(50),
                    micros(99),
                    statementsPerDecision,
                    overAdmitted() == 0 ? "within bound" : "OVER BY " + overAdmitted());
        }
    }

    /**
     * The most admissions in any span of the period (fixed windows: in one window), on the clock the limiter decided
     * on ({@link Admissions#CLOCK_TOLERANCE_MICROS}), whichever limiter: the same measure for both.
     */
    static long most(RateLimitWorkload.Kind kind, RateLimitWorkload.Limit limit, List<Admission> admissions) {
        long period = limit.period().toNanos() / 1_000;
        return kind.fixedWindow()
                ? Admissions.mostInAWindow(admissions, period, Admissions.CLOCK_TOLERANCE_MICROS)
                : Admissions.mostInAnyPeriod(admissions, period, Admissions.CLOCK_TOLERANCE_MICROS);
    }

    static Result run(
            BenchDatabase database,
            RateLimitWorkload.Kind kind,
            String scenario,
            RateLimitWorkload.Limit limit,
            int threads,
            int keys,
            Duration warmup,
            Duration duration)
            throws Exception {
        StatementCounter statements = new StatementCounter();
        return LoadDriver.onPools(database, statements, threads + 8, threads, 1, setup -> {
            try (RateLimitWorkload limiter =
                    kind.opener().open(setup.dataSource(), database, limit, FreshTables.name("rl"), true)) {
                ConcurrentLinkedQueue<Admission> admissions = new ConcurrentLinkedQueue<>();
                LongAdder admitted = new LongAdder();
                LongAdder refused = new LongAdder();
                LongAdder errors = new LongAdder();
                LoadDriver.Measurement measurement = LoadDriver.measure(
                        threads, false, warmup, duration, statements, () -> Flushes.NONE, measured -> {
                            // The warm-up on keys of its own: the measured keys start with full buckets.
                            String key = (measured ? "k" : "w")
                                    + (keys == 1
                                            ? 0
                                            : ThreadLocalRandom.current().nextInt(keys));
                            long start = AdmissionLog.micros();
                            try {
                                boolean allowed = limiter.tryAcquire(key);
                                if (measured) {
                                    (allowed ? admitted : refused).increment();
                                }
                                if (allowed && measured) {
                                    admissions.add(new Admission(start, AdmissionLog.micros()));
                                }
                                return true;
                            } catch (Exception e) {
                                if (measured) {
                                    errors.increment();
                                }
                                return false;
                            }
                        });
                List<Admission> all = List.copyOf(admissions);
                long most = most(kind, limit, all);
                return new Result(
                        database,
                        kind.name(),
                        scenario,
                        1,
                        threads,
                        keys,
                        limit,
                        // Counted here, not by the driver: the decisions started in the measured window.
                        admitted.sum() + refused.sum(),
                        measurement.seconds(),
                        admitted.sum(),
                        errors.sum(),
                        keys == 1 ? most : -1, // a bound per key: checked on the hot key only
                        limit.bound(kind.fixedWindow()),
                        measurement.latency(),
                        measurement.statementsPerOperation());
            }
        });
    }
}
