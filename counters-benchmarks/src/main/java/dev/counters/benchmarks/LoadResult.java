package dev.counters.benchmarks;

import org.HdrHistogram.Histogram;

/**
 * One measured run: throughput over the measurement window, latency percentiles, statements per operation, and
 * whether the end state was right (counters: stored total = acknowledged increments; sequences: no duplicate and
 * strictly increasing per thread).
 */
record LoadResult(BenchDatabase database, String workload, int threads, int counters, long operations,
        double seconds, Histogram latency, double statementsPerOperation, long failures, boolean correct) {

    double operationsPerSecond() {
        return operations / seconds;
    }

    /** A latency percentile in microseconds. */
    double micros(double percentile) {
        return latency.getValueAtPercentile(percentile) / 1_000.0;
    }

    String line() {
        return String.format("%-8s %-18s threads=%2d counters=%3d %,12.0f ops/s  p50=%8.1fµs p99=%9.1fµs"
                        + " p99.9=%9.1fµs  %.3f stmts/op  failures=%d  %s", database, workload, threads, counters,
                operationsPerSecond(), micros(50), micros(99), micros(99.9), statementsPerOperation, failures,
                correct ? "exact" : "NOT EXACT");
    }
}
