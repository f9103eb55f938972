package dev.counters.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Writes docs/benchmarks-redis.md: {@code monotonic} with its cache on Redis, run by three application instances,
 * beside Redis {@code INCR} alone and the database strategies, all on the production-like MariaDB. As
 * {@link GaleraReport}: a warm-up point thrown away, then the plan twice, the second time in reverse order.
 */
final class RedisReport {

    private static final BenchDatabase DATABASE = BenchDatabase.MARIADB_DURABLE;
    private static final int CALLERS = 64;
    private static final int REPETITIONS = 2;

    /** Whether an acknowledged increment survives a crash of the process that holds it (Redis, or the database). */
    private static final Map<String, String> DURABLE = Map.of(
            "redis-incr", "no: in Redis's memory only",
            "redis-always", "yes: Redis's append-only file, synced",
            "monotonic-redis-3", "yes: the value's maximum committed before it is returned",
            "monotonic-redis-3-chance-0.01",
                    "about 1 value in 100; if Redis loses the counter, values since the last"
                            + " written one are handed out again",
            "monotonic", "yes; values unique on one instance only (the cache is in its JVM)");

    private record Point(int repetition, LoadResult result) {}

    private final Path docs;
    private final boolean quick;
    private final List<Point> points = new ArrayList<>();

    RedisReport(Path docs, boolean quick) {
        this.docs = docs;
        this.quick = quick;
    }

    boolean allExact() {
        return points.stream().allMatch(point -> point.result().correct());
    }

    void run() throws Exception {
        if (!RedisWorkload.available()) {
            throw new IllegalStateException(
                    "The Redis report needs a redis-server on the PATH (Debian: apt-get" + " install redis-server)");
        }
        long started = System.nanoTime();
        Duration warmup = Duration.ofMillis(quick ? 300 : 3_000);
        Duration duration = Duration.ofMillis(quick ? 500 : 5_000);
        // Redis INCR, monotonic on Redis, then the database strategies (a committed upsert or update each).
        List<Workload.Kind> kinds =
                new ArrayList<>(List.of(Workloads.counting("redis-incr"), Workloads.counting("redis-always")));
        kinds.addAll(Workloads.monotonicRedis());
        for (String name : List.of("plain-update", "atomic", "sharded", "node", "monotonic")) {
            kinds.add(Workloads.counting(name));
        }
        // A JVM's first point runs while the JIT is still compiling: run one, through Redis and the database, and
        // throw it away.
        LoadDriver.run(DATABASE, Workloads.monotonicRedis().getFirst(), CALLERS, 1, warmup, duration);
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            List<Workload.Kind> order = new ArrayList<>(kinds);
            if (repetition % 2 == 1) {
                Collections.reverse(order);
            }
            for (Workload.Kind kind : order) {
                points.add(new Point(
                        repetition, Report.logged(LoadDriver.run(DATABASE, kind, CALLERS, 1, warmup, duration))));
            }
        }
        write(Duration.ofNanos(System.nanoTime() - started), kinds);
    }

    private LoadResult point(int repetition, String workload) {
        return points.stream()
                .filter(p ->
                        p.repetition() == repetition && p.result().workload().equals(workload))
                .findFirst()
                .orElseThrow()
                .result();
    }

    /** One cell: the repetitions, comma-separated. */
    private String cell(Workload.Kind kind, Function<LoadResult, Double> value, String format) {
        List<String> values = new ArrayList<>();
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            values.add(String.format(Locale.ROOT, format, value.apply(point(repetition, kind.name()))));
        }
        return String.join(", ", values);
    }

    private void write(Duration took, List<Workload.Kind> kinds) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks: monotonic counters with their cache on Redis\n\n");
        md.append(Report.generated("redis", took, quick));
        md.append("- **Database:** ")
                .append(DATABASE.description)
                .append(". The delay stands in for a disk that"
                        + " honours flushes; this machine's own disk syncs for nearly nothing.\n");
        md.append("- **Redis:** one local `redis-server` per point, without persistence (`--save \"\" --appendonly"
                + " no`), as `RedisMonotonicCache` asks; `redis-always` alone runs it with `appendfsync always` and"
                + " the same delay per sync.\n");
        md.append("- `monotonic-redis-3`: three application instances, each with its own connection pool, its own"
                + " Lettuce connection (500 ms timeout) and its own `RedisMonotonicCache`, all counting one sequence;"
                + " `MonotonicSettings.defaults()` with `monotonicCache(cache)`: 20 shard rows, `chance-to-write`"
                + " 1.0, or 0.01 in the second row. Each increment is `incrementAndGet`. The other workloads run one"
                + " instance.\n");
        md.append("- ")
                .append(CALLERS)
                .append(" callers (shared among the instances), one hot counter. ")
                .append(quick ? "Short points" : "3 s of warm-up, then 5 s measured per point")
                .append("; the plan ran twice, the second time in reverse order.\n");
        md.append("- The machine has 2 cores, shared by the client (this JVM: callers, pools, Lettuce), MariaDB and"
                + " Redis. Read the ratios, not the absolute numbers: on separate machines each would have cores of"
                + " its own, and every call would add a network round trip.\n\n");
        md.append("| workload | increments/s | p50 ms | p99 ms | statements per increment | failed (per s) | exact"
                + " | durable when acknowledged |\n|---|---|---|---|---|---|---|---|\n");
        for (Workload.Kind kind : kinds) {
            boolean exact = true;
            for (int repetition = 0; repetition < REPETITIONS; repetition++) {
                exact &= point(repetition, kind.name()).correct();
            }
            md.append("| `")
                    .append(kind.name())
                    .append("` | ")
                    .append(cell(kind, LoadResult::operationsPerSecond, "%,.0f"))
                    .append(" | ")
                    .append(cell(kind, result -> result.micros(50) / 1_000, "%.2f"))
                    .append(" | ")
                    .append(cell(kind, result -> result.micros(99) / 1_000, "%.2f"))
                    .append(" | ")
                    .append(cell(kind, LoadResult::statementsPerOperation, "%.2f"))
                    .append(" | ")
                    .append(cell(kind, result -> result.failures() / result.seconds(), "%,.0f"))
                    .append(" | ")
                    .append(exact ? "yes" : "**NO**")
                    .append(" | ")
                    .append(DURABLE.getOrDefault(kind.name(), "yes: committed before it returns"))
                    .append(" |\n");
        }
        md.append("\nEach cell lists the two repetitions. Latency is per increment as the caller sees it. Statements"
                + " are those sent to the database in the measured window, commits included, per increment measured"
                + " (Redis commands are not counted; increments in flight at the window's edges add a little). \"Failed\": increments"
                + " that threw; they are not acknowledged. \"Exact\": for the database strategies and Redis `INCR`, the"
                + " stored total equals the acknowledged increments; for `monotonic-redis-3`, every value handed out"
                + " was handed out once across the three instances, rose for each caller, and is at most the value"
                + " left in Redis and (at 1.0) the maximum in the database.\n\n");
        md.append("What the numbers mean:\n\n");
        md.append("- **Redis `INCR` alone** is the ceiling and is not durable: what Redis holds in memory is lost with"
                + " it. Made durable (`redis-always`), each increment waits for a synced append.\n");
        md.append("- **`monotonic` on Redis at 1.0** hands out values unique across the instances and costs, per"
                + " value, two Redis round trips (the increment script, then a check that the cached copy outlived the"
                + " write) and its share of a committed max-upsert of one of 20 shard rows: the callers of one"
                + " instance that wait at the same time share one write of the largest of their values, as `atomic`"
                + " and `node` fold concurrent increments into one update (see statements per increment). In"
                + " exchange Redis may be flushed or restarted empty at any time: the next increment reloads the"
                + " maximum, and no value is handed out twice.\n");
        md.append("- **At 0.01** about one increment in a hundred commits a maximum, and no check follows: one Redis"
                + " round trip per value, and the database is no longer the bound. The price: if Redis loses the"
                + " counter, it resumes from the last value written, and the values handed out since (about a"
                + " hundred on average, more with bad luck) are handed out again. Fine where a repeat is tolerable;"
                + " 1.0 for ids.\n");
        md.append("- `plain-update` waits for the hot row's lock and a commit per increment; `atomic`, `sharded` and"
                + " `node` count exactly, each increment committed before it returns, but hand out no values. The"
                + " local `monotonic` does, unique within its one instance only.\n");
        Files.writeString(docs.resolve("benchmarks-redis.md"), md.toString());
    }
}
