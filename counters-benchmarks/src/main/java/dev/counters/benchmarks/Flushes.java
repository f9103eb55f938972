package dev.counters.benchmarks;

import dev.counters.CounterService;
import dev.counters.StrategyStatistics;
import java.util.Arrays;

/**
 * The flushes a buffered workload's services committed so far, and the time spent in them ({@link
 * StrategyStatistics.BufferActivity}); none for the other workloads. Taken before and after a measurement window, the
 * difference says how long a flush took, how many callers each carried and how many were in flight.
 */
record Flushes(long count, long nanos) {

    static final Flushes NONE = new Flushes(0, 0);

    /** The flushes of every buffered strategy of these services. */
    static Flushes of(CounterService... services) {
        return Arrays.stream(services)
                .flatMap(service -> service.statistics().stream())
                .map(statistics -> statistics.activity().buffer())
                .filter(buffer -> buffer != null)
                .map(buffer -> new Flushes(buffer.flushes(), buffer.flushTime().toNanos()))
                .reduce(NONE, Flushes::plus);
    }

    Flushes plus(Flushes other) {
        return new Flushes(count + other.count, nanos + other.nanos);
    }

    Flushes minus(Flushes before) {
        return new Flushes(count - before.count, nanos - before.nanos);
    }

    /** The mean time of a flush, in microseconds. */
    double meanMicros() {
        return nanos / 1e3 / count;
    }
}
