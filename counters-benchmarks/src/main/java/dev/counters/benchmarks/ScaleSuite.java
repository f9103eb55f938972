package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.strategy.BufferedSettings;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** How cost grows with the amount of work: the numbers behind "it scales" claims. */
final class ScaleSuite {

    /** One measurement: what grew ({@code size}), and what it cost. */
    record Row(String measure, BenchDatabase database, long size, double value, String unit) {}

    private ScaleSuite() {}

    /** Heap per pending counter, and the time of the one flush that writes them all. */
    static List<Row> bufferedFlush(BenchDatabase database, long... dirtyCounters) {
        List<Row> rows = new ArrayList<>();
        try (HikariDataSource pool = database.pool(4)) {
            JooqCounterStore store = store(pool);
            for (long size : dirtyCounters) {
                BufferedSettings settings = BufferedSettings.defaults()
                        .withFlushInterval(Duration.ofHours(1))
                        .withFlushThreshold(Long.MAX_VALUE)
                        .withMaxPendingCounters((int) size + 1)
                        .withShutdownTimeout(Duration.ofMinutes(5));
                try (CounterService counters =
                        CounterService.builder(store).defaultStrategy(settings).build()) {
                    String prefix = "flush" + size + ".";
                    counters.increment(prefix + "warm");
                    long before = usedHeap();
                    for (long i = 0; i < size; i++) {
                        counters.increment(prefix + i);
                    }
                    long after = usedHeap();
                    long started = System.nanoTime();
                    counters.flush().join();
                    double seconds = (System.nanoTime() - started) / 1e9;
                    rows.add(new Row(
                            "buffered heap per pending counter",
                            database,
                            size,
                            (double) (after - before) / size,
                            "bytes"));
                    rows.add(new Row("buffered flush of all pending counters", database, size, seconds * 1_000, "ms"));
                }
            }
        }
        return rows;
    }

    /** Read time of a counter spread over N cells: shards of a sharded counter, or rows of N nodes. */
    static List<Row> cellReads(BenchDatabase database, String measure, String cellPrefix, int... cellCounts) {
        List<Row> rows = new ArrayList<>();
        try (HikariDataSource pool = database.pool(4)) {
            JooqCounterStore store = store(pool);
            for (int cells : cellCounts) {
                CounterName name = CounterName.of("cells." + cellPrefix.replace(':', '.') + cells);
                for (int i = 0; i < cells; i++) {
                    store.add(name, cellPrefix + i + (cellPrefix.startsWith("n:") ? ":+" : ""), 1);
                }
                rows.add(new Row(measure, database, cells, readMicros(store, name, cells), "µs"));
            }
        }
        return rows;
    }

    /** Read time of a delta-log counter with N unfolded deltas. */
    static List<Row> deltaLogReads(BenchDatabase database, int... deltaCounts) {
        List<Row> rows = new ArrayList<>();
        try (HikariDataSource pool = database.pool(4)) {
            JooqCounterStore store = store(pool);
            for (int deltas : deltaCounts) {
                CounterName name = CounterName.of("deltas." + deltas);
                Instant now = Instant.now();
                for (int i = 0; i < deltas; i++) {
                    store.appendDelta(name, UUID.randomUUID().toString(), 1, now);
                }
                rows.add(new Row(
                        "delta-log read with unfolded deltas",
                        database,
                        deltas,
                        readMicros(() -> store.getAll(List.of(name)).get(name), deltas),
                        "µs"));
            }
        }
        return rows;
    }

    private static double readMicros(JooqCounterStore store, CounterName name, long expected) {
        return readMicros(() -> store.get(name), expected);
    }

    /** Microseconds per read, each checked against {@code expected}. */
    private static double readMicros(java.util.function.LongSupplier read, long expected) {
        int reads = 50;
        for (int i = 0; i < 10; i++) {
            check(read.getAsLong(), expected);
        }
        long started = System.nanoTime();
        for (int i = 0; i < reads; i++) {
            check(read.getAsLong(), expected);
        }
        return (System.nanoTime() - started) / 1_000.0 / reads;
    }

    private static void check(long value, long expected) {
        if (value != expected) {
            throw new IllegalStateException("Read " + value + ", expected " + expected);
        }
    }

    private static JooqCounterStore store(HikariDataSource pool) {
        return FreshTables.store(pool);
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
