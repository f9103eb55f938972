package dev.counters.benchmarks;

import org.HdrHistogram.Histogram;

/**
 * One measured run: throughput over the measurement window, latency percentiles, statements and client CPU time per
 * operation, whether the end state was right (counters: stored total = acknowledged increments; sequences: no
 * duplicate and strictly increasing per thread), and the flushes a buffered workload committed in the window.
 */
record LoadResult(
        BenchDatabase database,
        String workload,
        int threads,
        boolean virtual,
        int counters,
        long operations,
        double seconds,
        Histogram latency,
        double statementsPerOperation,
        double cpuMicrosPerOperation,
        long failures,
        boolean correct,
        Flushes flushes) {

    double operationsPerSecond() {
        return operations / seconds;
    }

    /** A latency percentile in microseconds. */
    double micros(double percentile) {
        return latency.getValueAtPercentile(percentile) / 1_000.0;
    }

    /** The mean latency in microseconds. */
    double meanMicros() {
        return latency.getMean() / 1_000.0;
    }

    /** The callers: {@code 64}, or {@code 256v} on virtual threads. */
    String callers() {
        return threads + (virtual ? "v" : "");
    }

    String line() {
        return String.format(
                        "%-8s %-18s threads=%4s counters=%3d %,12.0f ops/s  p50=%8.1fµs p99=%9.1fµs"
                                + " p99.9=%9.1fµs  %.3f stmts/op  %.1f µs CPU/op  failures=%d  %s",
                        database,
                        workload,
                        callers(),
                        counters,
                        operationsPerSecond(),
                        micros(50),
                        micros(99),
                        micros(99.9),
                        statementsPerOperation,
                        cpuMicrosPerOperation,
                        failures,
                        correct ? "exact" : "NOT EXACT")
                + (flushes.count() == 0
                        ? ""
                        : String.format(
                                "  flush=%.1fµs %.1f in flight %.1f calls/flush",
                                flushes.meanMicros(),
                                flushes.nanos() / 1e9 / seconds,
                                (double) operations / flushes.count()));
    }
}
