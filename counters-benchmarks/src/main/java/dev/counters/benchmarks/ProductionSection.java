package dev.counters.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * The report's first section: durable commits at about 1 ms per sync ({@link DurableServers}), the conditions a hot
 * row is slow in. Each point gets 5 s of warm-up, then 5 s measured; a JVM's first workload is run once and thrown away
 * (the JIT is still compiling), and the whole plan is repeated in reverse order, so that neither order nor warm-up
 * favours a workload. Every ratio is taken within one repetition.
 */
final class ProductionSection {

    static final List<BenchDatabase> DATABASES = List.of(BenchDatabase.MARIADB_DURABLE, BenchDatabase.POSTGRES_DURABLE);
    private static final List<String> STRATEGIES =
            List.of("plain-update", "atomic", "sharded", "node", "optimistic", "delta-log", "buffered-durable");
    private static final List<Callers> CALLERS =
            List.of(new Callers(1, false), new Callers(8, false), new Callers(64, false), new Callers(256, true));
    private static final Callers HOT = new Callers(64, false);
    private static final Callers WEB = new Callers(256, true);
    /** Several application instances, at the concurrency where they matter. */
    private static final List<String> INSTANCES = List.of("node-2", "node-4");
    /** Measured with the first database only: Redis does not depend on it, and ratios stay within one repetition. */
    private static final List<String> REDIS = List.of("redis-always", "redis-everysec");
    /** This library's block sequence against the database's own key generation, where it replaces it. */
    private static final List<String> SEQUENCES = List.of("sequence-block", "auto-increment");

    private static final Callers SEQUENCE_CALLERS = new Callers(8, false);
    /** What an idempotency key costs: each workload with keys, and the same strategy without. */
    private static final List<List<String>> KEYED = List.of(
            List.of("atomic-keyed", "atomic"),
            List.of("sharded-keyed", "sharded"),
            List.of("buffered-keyed", "buffered"));

    private static final List<Callers> KEYED_CALLERS = List.of(new Callers(1, false), HOT);
    private static final double SEQUENCE_TARGET = 1_000;
    /** Durable buffered's share of the limit (see {@link #shareOfLimit}) at 64 threads. */
    private static final double SHARE_TARGET = 0.8;
    /** PostgreSQL syncs once per commit, as Redis's {@code always} does: durable buffered should pass it by this much. */
    private static final double REDIS_ALWAYS_TARGET_POSTGRES = 1.3;

    private static final int SPREAD = 100;
    private static final int REPETITIONS = 2;

    /** Targets: × plain update, one hot counter, 64 threads. */
    private static final Map<String, Double> TARGETS = Map.of(
            "atomic",
            10.0,
            "node",
            10.0,
            "sharded",
            15.0,
            "delta-log",
            20.0,
            "optimistic",
            30.0,
            "buffered-durable",
            60.0);

    /** Why a target can be missed, and what would close it; printed only for the targets a run missed. */
    private static final Map<String, String> WHY = Map.of(
            "buffered-durable",
            "a durable increment returns only once a commit carrying it is on disk, so 64 callers that"
                    + " each wait for their own make at most 64 increments per commit latency (the share of the limit"
                    + " in the tables). Its flushes are concurrent at the server: up to five are in flight, each on a"
                    + " row of its own, and the profile under each database's table shows four to five in flight at 64"
                    + " callers, so no lock or single thread serializes them. Two things keep it from the limit, and"
                    + " the profile shows both. On MariaDB a flush among others takes a sync or more longer than a"
                    + " flush alone (its mean flush from 8 callers on, against 1): the server syncs its redo log and"
                    + " its binlog one sync at a time, and a commit that arrives while a sync is under way waits for"
                    + " it to end before its own begins; with several flushes in flight the logs are always syncing,"
                    + " so each of a commit's two syncs costs one and a half on average. On PostgreSQL a flush takes"
                    + " about as long as alone, and what separates it from the limit is the time from the end of the"
                    + " flush to the caller's return (latency − flush): the wait for a free lane and the hand-back to"
                    + " the caller's thread, which virtual threads halve. More lanes shorten the wait and, on"
                    + " MariaDB, lengthen every flush. A flush is one"
                    + " statement that commits on its own: an anonymous block on MariaDB, a data-modifying WITH on"
                    + " PostgreSQL.",
            "optimistic",
            "a combined write is one compare-and-set while the row is as this JVM's last write"
                    + " left it, as atomic's is one update; but its new value is computed in the client, so a batch"
                    + " can only start once the previous one's result is back, and on 2 cores shared with the"
                    + " database that turnaround is what separates it from atomic.",
            "sharded",
            "combining works per shard: spreading 64 callers over 16 shards makes smaller batches, so more"
                    + " commits for the same increments, and the commits are CPU-bound on 2 cores. Fewer shards, or"
                    + " per-thread shards, trade contention for batch size.",
            "delta-log",
            "concurrent increments share a delta row, but each row is an insert into a growing log,"
                    + " and a recount every 1,000 rows or second folds them in a transaction of its own that"
                    + " competes for the same 2 cores.",
            "share",
            "see buffered-durable: the limit counts one commit alone per caller; on MariaDB a commit among"
                    + " others in flight costs a sync or more, and on both a caller waits for a free lane and for"
                    + " its answer.",
            "redis",
            "Redis's `appendfsync always` syncs once per event-loop turn for every client served in it, as"
                    + " a database's group commit syncs once for the commits of one cycle. For callers that each wait"
                    + " for their own increment, throughput is callers ÷ latency, so the number of syncs per commit"
                    + " decides: MariaDB's durable commit with binlog syncs twice, Redis once. Where Redis answers 64"
                    + " callers faster than 64 ÷ one MariaDB commit latency (its increments/s above the limit, 64 ×"
                    + " one caller's plain updates a second), no design that answers after a MariaDB commit can"
                    + " reach it. On PostgreSQL, which syncs once per commit as Redis does, durable buffered's"
                    + " margin over Redis `always` is set by its share of the limit, not by the syncs. `everysec`"
                    + " answers before anything is synced: at 256 callers it is compared with increments that wait"
                    + " for a sync.",
            "sequence",
            "the load driver times every number and records it for the uniqueness check, which tops"
                    + " 8 threads on 2 cores out at some tens of millions of numbers a second.",
            "spread",
            "with 100 counters the plain update's 64 callers rarely meet on a row, so it is no longer"
                    + " bound by one row lock, and there is little for combining to fold (each row sees few"
                    + " concurrent callers). What a strategy writes beyond one statement then shows: delta-log"
                    + " writes each increment three times (its append, the recount that marks it folded, the purge),"
                    + " where the plain update writes the row once in place; the log pays that back only on a hot"
                    + " row.");

    /** Concurrent callers: platform threads, or virtual ones as a Boot 4 web server with virtual threads runs. */
    record Callers(int threads, boolean virtual) {

        String label() {
            return threads + (virtual ? " virtual" : "");
        }
    }

    private record Step(String workload, Callers callers, int counters) {}

    private record Point(int repetition, LoadResult result) {}

    private final boolean quick;
    private final List<Point> points = new ArrayList<>();
    /** Plain updates on the same durable settings without the emulated sync cost. */
    private final List<LoadResult> undelayed = new ArrayList<>();

    private final Set<String> missed = new LinkedHashSet<>();

    ProductionSection(boolean quick) {
        this.quick = quick;
    }

    boolean allExact() {
        return points.stream().allMatch(point -> point.result().correct())
                && undelayed.stream().allMatch(LoadResult::correct);
    }

    /** What runs on one database, in the order of an even repetition. */
    private static List<Step> plan(BenchDatabase database) {
        List<Step> steps = new ArrayList<>();
        for (String workload : STRATEGIES) {
            CALLERS.forEach(callers -> steps.add(new Step(workload, callers, 1)));
        }
        for (String workload : INSTANCES) {
            steps.add(new Step(workload, HOT, 1));
            steps.add(new Step(workload, WEB, 1));
        }
        if (database == DATABASES.getFirst() && RedisWorkload.available()) {
            for (String workload : REDIS) {
                steps.add(new Step(workload, HOT, 1));
                steps.add(new Step(workload, WEB, 1));
            }
        }
        for (List<String> pair : KEYED) {
            for (Callers callers : KEYED_CALLERS) {
                steps.add(new Step(pair.get(0), callers, 1));
                if (!STRATEGIES.contains(pair.get(1))) {
                    steps.add(new Step(pair.get(1), callers, 1));
                }
            }
        }
        STRATEGIES.forEach(workload -> steps.add(new Step(workload, HOT, SPREAD)));
        SEQUENCES.forEach(workload -> steps.add(new Step(workload, SEQUENCE_CALLERS, 1)));
        return steps;
    }

    void run(Report.Attempts attempts) {
        Duration warmup = Duration.ofMillis(quick ? 300 : 5_000);
        Duration duration = Duration.ofMillis(quick ? 500 : 5_000);
        Report.log("production-like: the emulation's effect");
        for (BenchDatabase database :
                List.of(BenchDatabase.MARIADB_DURABLE_NO_DELAY, BenchDatabase.POSTGRES_DURABLE_NO_DELAY)) {
            for (Callers callers : List.of(new Callers(1, false), HOT)) {
                attempts.attempt(
                        "plain-update on " + database,
                        () -> undelayed.add(Report.logged(LoadDriver.run(
                                database,
                                Workloads.counting("plain-update"),
                                callers.threads(),
                                1,
                                warmup,
                                duration))));
            }
        }
        for (BenchDatabase database : DATABASES) {
            Report.log("production-like " + database);
            attempts.attempt(
                    "warm-up on " + database,
                    () -> Report.logged(
                            LoadDriver.run(database, Workloads.counting("atomic"), 8, 1, warmup, duration)));
            for (int repetition = 0; repetition < REPETITIONS; repetition++) {
                List<Step> steps = plan(database);
                if (repetition % 2 == 1) {
                    Collections.reverse(steps);
                }
                int round = repetition;
                for (Step step : steps) {
                    attempts.attempt(
                            step.workload() + " on " + database,
                            () -> points.add(new Point(
                                    round,
                                    Report.logged(
                                            SEQUENCES.contains(step.workload())
                                                    ? LoadDriver.runSequence(
                                                            database,
                                                            Workloads.sequence(step.workload()),
                                                            step.callers().threads(),
                                                            warmup,
                                                            duration)
                                                    : LoadDriver.run(
                                                            database,
                                                            Workloads.counting(step.workload()),
                                                            step.callers().threads(),
                                                            step.callers().virtual(),
                                                            step.counters(),
                                                            warmup,
                                                            duration)))));
                }
            }
        }
    }

    // ---- the document ----

    void write(StringBuilder md, Path charts) throws IOException {
        md.append("## Production-like mode\n\n");
        md.append("Durable commits, each disk sync made to cost about a millisecond: ")
                .append(BenchDatabase.MARIADB_DURABLE.description)
                .append("; ")
                .append(BenchDatabase.POSTGRES_DURABLE.description)
                .append(". Each point: ")
                .append(quick ? "0.3 s warm-up, 0.5 s" : "5 s warm-up, 5 s")
                .append(" measured, ")
                .append(REPETITIONS)
                .append(" repetitions (the second in reverse order); ranges are the lowest and"
                        + " highest of them, and each ratio is taken within one repetition. The first workload of the"
                        + " JVM ran once before, unmeasured. Exactness is checked after every point. Callers are"
                        + " platform threads with a connection each, or virtual threads sharing "
                        + LoadDriver.MAX_POOL + " connections. CPU is the benchmark JVM's (the client's) per"
                        + " increment; the servers run in processes of their own. Redis runs with the same delay per"
                        + " disk sync.\n\n");
        if (points.isEmpty()) {
            md.append("Not run.\n\n");
            return;
        }
        emulation(md);
        targets(md);
        for (BenchDatabase database : DATABASES) {
            String vendor = database.vendor().name();
            md.append("### ").append(vendor).append("\n\n");
            String prefix = "production-" + vendor.toLowerCase(Locale.ROOT);
            Charts.throughputByThreads(
                    charts,
                    prefix + "-threads.png",
                    vendor + ", durable: one hot counter",
                    results(
                            r -> r.database() == database
                                    && r.counters() == 1
                                    && !REDIS.contains(r.workload())
                                    && !INSTANCES.contains(r.workload()),
                            0));
            Map<String, double[]> latency = new LinkedHashMap<>();
            for (LoadResult r : results(
                    r -> r.counters() == 1
                            && r.threads() == HOT.threads()
                            && !r.virtual()
                            && (r.database() == database || REDIS.contains(r.workload())),
                    0)) {
                latency.put(r.workload(), new double[] {r.micros(50), r.micros(99)});
            }
            Charts.latency(
                    charts, prefix + "-latency.png", vendor + ", durable: latency at 64 threads (log scale)", latency);
            md.append("![throughput by threads](benchmarks/")
                    .append(prefix)
                    .append("-threads.png)\n")
                    .append("![latency at 64 threads](benchmarks/")
                    .append(prefix)
                    .append("-latency.png)\n\n");
            md.append(
                            "Share of the limit: increments/s ÷ (callers ÷ the commit latency), the commit latency measured in"
                                    + " the same repetition as one caller's plain update (1 ÷ its increments/s): how close"
                                    + " callers that each wait for their own commit come to waiting for one commit only."
                                    + " A plain update makes one commit at a time for all its callers, so its share falls as"
                                    + " they grow; atomic and node also write one row with one commit at a time, but each"
                                    + " commit carries every caller waiting, so a caller waits for the commit under way"
                                    + " and then its own, one and a half commits on average: a share of about 0.67 at"
                                    + " most; durable buffered has five flushes in flight.\n\n")
                    .append(
                            "| workload | callers | counters | increments/s | × plain update | share of the limit | p50 µs"
                                    + " | p99 µs | µs CPU/increment | statements/increment | exact |\n"
                                    + "|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (Step step : plan(database)) {
                if (!SEQUENCES.contains(step.workload())) {
                    row(md, database, step);
                }
            }
            if (database != DATABASES.getFirst()) {
                for (String redis : REDIS) {
                    row(md, database, new Step(redis, HOT, 1));
                    row(md, database, new Step(redis, WEB, 1));
                }
            }
            md.append('\n');
            flushProfile(md, database);
            sequences(md, database);
            keys(md, database);
        }
    }

    /**
     * Where a durable buffered increment's time goes, from the flushes its service counted in each point's window:
     * how long a flush took against one commit alone, how many were in flight (Little's law: time in flushes ÷ the
     * window), how many callers each carried, and what is left of the mean latency besides the flush.
     */
    private void flushProfile(StringBuilder md, BenchDatabase database) {
        double[] oneCommit =
                results(matching(database, new Step("plain-update", new Callers(1, false), 1)), -1).stream()
                        .mapToDouble(r -> 1e6 / r.operationsPerSecond())
                        .sorted()
                        .toArray();
        md.append("Durable buffered, where an increment's time goes: one caller's plain update, a commit alone, took ")
                .append(spread(oneCommit, "%,.0f"))
                .append(" µs. A flush is timed by the strategy (`StrategyStatistics`: flushes and their time), from"
                        + " collecting the waiting callers to the commit's answer; flushes in flight = time in"
                        + " flushes ÷ the window; the rest of a caller's mean latency is its wait for a free lane"
                        + " (five) and for its answer.\n\n"
                        + "| callers | increments/s | mean latency µs | mean flush µs | flushes in flight | callers a"
                        + " flush | latency − flush µs |\n|---|---|---|---|---|---|---|\n");
        for (Callers callers : CALLERS) {
            List<LoadResult> all = results(matching(database, new Step("buffered-durable", callers, 1)), -1).stream()
                    .filter(r -> r.flushes().count() > 0)
                    .toList();
            if (all.isEmpty()) {
                continue;
            }
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %s | %s | %s |%n",
                    callers.label(),
                    spread(all, LoadResult::operationsPerSecond, "%,.0f"),
                    spread(all, LoadResult::meanMicros, "%,.0f"),
                    spread(all, r -> r.flushes().meanMicros(), "%,.0f"),
                    spread(all, r -> r.flushes().nanos() / 1e9 / r.seconds(), "%.1f"),
                    spread(all, r -> (double) r.operations() / r.flushes().count(), "%.1f"),
                    spread(all, r -> r.meanMicros() - r.flushes().meanMicros(), "%,.0f")));
        }
        md.append('\n');
    }

    private static String spread(List<LoadResult> all, ToDoubleFunction<LoadResult> value, String format) {
        return spread(all.stream().mapToDouble(value).sorted().toArray(), format);
    }

    /** The lowest and highest of sorted values, or the one value. */
    private static String spread(double[] sorted, String format) {
        if (sorted.length == 0) {
            return "";
        }
        String low = String.format(Locale.ROOT, format, sorted[0]);
        String high = String.format(Locale.ROOT, format, sorted[sorted.length - 1]);
        return low.equals(high) ? low : low + "–" + high;
    }

    /** Each keyed workload against its strategy without keys, within one repetition. */
    private void keys(StringBuilder md, BenchDatabase database) {
        md.append("Idempotency keys: each increment under a key of its own, against the same strategy without keys"
                + " (a keyed increment is a transaction of its own: the key's insert and the change; not combined"
                + " with other callers'; buffered records the keys in its flush).\n\n| with a key | callers |"
                + " increments/s | ÷ without a key | statements/increment |\n|---|---|---|---|---|\n");
        for (List<String> pair : KEYED) {
            for (Callers callers : KEYED_CALLERS) {
                List<LoadResult> all = results(matching(database, new Step(pair.get(0), callers, 1)), -1);
                if (all.isEmpty()) {
                    continue;
                }
                double[] ops = all.stream()
                        .mapToDouble(LoadResult::operationsPerSecond)
                        .sorted()
                        .toArray();
                String ratio = range(database, pair.get(0), callers, 1, pair.get(1))
                        .map(r -> times(r[0]) + "–" + times(r[1]))
                        .orElse("");
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %,.0f–%,.0f | %s | %.3f |%n",
                        pair.get(0),
                        callers.label(),
                        ops[0],
                        ops[ops.length - 1],
                        ratio,
                        all.getFirst().statementsPerOperation()));
            }
        }
        md.append('\n');
    }

    /** Unique numbers: each run checks that none repeats and that each thread's numbers increase. */
    private void sequences(StringBuilder md, BenchDatabase database) {
        md.append(
                "| sequence | callers | numbers/s | × AUTO_INCREMENT | p50 µs | p99 µs | statements/number | correct |"
                        + "\n|---|---|---|---|---|---|---|---|\n");
        for (String workload : SEQUENCES) {
            Step step = new Step(workload, SEQUENCE_CALLERS, 1);
            List<LoadResult> all = results(matching(database, step), -1);
            if (all.isEmpty()) {
                continue;
            }
            double[] ops = all.stream()
                    .mapToDouble(LoadResult::operationsPerSecond)
                    .sorted()
                    .toArray();
            String ratio = range(database, workload, SEQUENCE_CALLERS, 1, "auto-increment")
                    .map(r -> times(r[0]) + "–" + times(r[1]))
                    .orElse("");
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,.0f–%,.0f | %s | %.1f | %.1f | %.4f | %s |%n",
                    workload,
                    step.callers().label(),
                    ops[0],
                    ops[ops.length - 1],
                    ratio,
                    all.stream().mapToDouble(r -> r.micros(50)).max().orElse(0),
                    all.stream().mapToDouble(r -> r.micros(99)).max().orElse(0),
                    all.getFirst().statementsPerOperation(),
                    all.stream().allMatch(LoadResult::correct) ? "yes" : "**NO**"));
        }
        md.append('\n');
    }

    /** A plain update of one hot counter with and without the emulated sync cost: what the emulation adds. */
    private void emulation(StringBuilder md) {
        if (undelayed.isEmpty()) {
            return;
        }
        md.append("### The emulation at work\n\nA plain update of one hot counter on the same durable settings, without"
                + " and with the delay per sync:\n\n| database | callers | without: increments/s | with: increments/s"
                + " |\n|---|---|---|---|\n");
        for (LoadResult plain : undelayed) {
            BenchDatabase delayed = plain.database().vendor() == BenchDatabase.MARIADB
                    ? BenchDatabase.MARIADB_DURABLE
                    : BenchDatabase.POSTGRES_DURABLE;
            List<LoadResult> with =
                    results(matching(delayed, new Step("plain-update", new Callers(plain.threads(), false), 1)), -1);
            double[] ops = with.stream()
                    .mapToDouble(LoadResult::operationsPerSecond)
                    .sorted()
                    .toArray();
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %d | %,.0f | %s |%n",
                    plain.database().vendor().name(),
                    plain.threads(),
                    plain.operationsPerSecond(),
                    ops.length == 0 ? "" : String.format(Locale.ROOT, "%,.0f–%,.0f", ops[0], ops[ops.length - 1])));
        }
        md.append('\n');
    }

    private void row(StringBuilder md, BenchDatabase database, Step step) {
        List<LoadResult> all = results(matching(database, step), -1);
        if (all.isEmpty()) {
            return;
        }
        double[] ops = all.stream()
                .mapToDouble(LoadResult::operationsPerSecond)
                .sorted()
                .toArray();
        String vsPlain = range(database, step.workload(), step.callers(), step.counters(), "plain-update")
                .map(r -> times(r[0]) + "–" + times(r[1]))
                .orElse("");
        String share = REDIS.contains(step.workload())
                ? "–"
                : shareOfLimit(database, step)
                        .map(r -> String.format(Locale.ROOT, "%.2f–%.2f", r[0], r[1]))
                        .orElse("");
        md.append(String.format(
                Locale.ROOT,
                "| %s | %s | %d | %,.0f–%,.0f | %s | %s | %.0f | %.0f | %.1f | %.3f | %s |%n",
                step.workload(),
                step.callers().label(),
                step.counters(),
                ops[0],
                ops[ops.length - 1],
                vsPlain,
                share,
                all.stream().mapToDouble(r -> r.micros(50)).max().orElse(0),
                all.stream().mapToDouble(r -> r.micros(99)).max().orElse(0),
                all.stream()
                        .mapToDouble(LoadResult::cpuMicrosPerOperation)
                        .average()
                        .orElse(0),
                all.getFirst().statementsPerOperation(),
                all.stream().allMatch(LoadResult::correct) ? "yes" : "**NO**"));
    }

    private void targets(StringBuilder md) {
        md.append("### Targets\n\n| target | database | measured (range) | met |\n|---|---|---|---|\n");
        for (Map.Entry<String, Double> target :
                TARGETS.entrySet().stream().sorted(Map.Entry.comparingByValue()).toList()) {
            for (BenchDatabase database : DATABASES) {
                range(database, target.getKey(), HOT, 1, "plain-update")
                        .ifPresent(range -> target(
                                md,
                                target.getKey(),
                                target.getKey() + " ≥ " + times(target.getValue()) + " plain update, 64 threads",
                                database,
                                range,
                                target.getValue()));
            }
        }
        for (BenchDatabase database : DATABASES) {
            double wanted = database.vendor() == BenchDatabase.POSTGRES ? REDIS_ALWAYS_TARGET_POSTGRES : 1;
            range(database, "buffered-durable", HOT, 1, "redis-always")
                    .ifPresent(range -> target(
                            md,
                            "redis",
                            "buffered-durable ≥ " + times(wanted) + " Redis INCR (`appendfsync always`), 64 threads",
                            database,
                            range,
                            wanted));
            range(database, "buffered-durable", WEB, 1, "redis-everysec")
                    .ifPresent(range -> target(
                            md,
                            "redis",
                            "buffered-durable ≥ Redis INCR (`everysec`), 256 virtual threads",
                            database,
                            range,
                            1));
        }
        for (BenchDatabase database : DATABASES) {
            shareOfLimit(database, new Step("buffered-durable", HOT, 1))
                    .ifPresent(range -> target(
                            md,
                            "share",
                            "buffered-durable's share of the limit ≥ 0.80, 64 threads",
                            database,
                            range,
                            SHARE_TARGET,
                            String.format(Locale.ROOT, "%.2f–%.2f", range[0], range[1])));
        }
        for (BenchDatabase database : DATABASES) {
            range(database, "sequence-block", SEQUENCE_CALLERS, 1, "auto-increment")
                    .ifPresent(range -> target(
                            md,
                            "sequence",
                            "block sequence ≥ 1,000× AUTO_INCREMENT inserts, 8 threads",
                            database,
                            range,
                            SEQUENCE_TARGET));
        }
        for (BenchDatabase database : DATABASES) {
            for (String workload : STRATEGIES.subList(1, STRATEGIES.size())) {
                range(database, workload, HOT, SPREAD, "plain-update")
                        .ifPresent(range -> target(
                                md,
                                "spread",
                                workload + " ≥ 0.9× plain update, 100 counters, 64 threads",
                                database,
                                range,
                                0.9));
            }
        }
        md.append('\n');
        for (String id : missed) {
            md.append("- **")
                    .append(id)
                    .append("** missed: ")
                    .append(WHY.getOrDefault(
                            id, "this run's numbers for it, in the tables below, are the ones to investigate."))
                    .append('\n');
        }
        md.append(missed.isEmpty() ? "" : "\n");
    }

    private void target(
            StringBuilder md, String id, String label, BenchDatabase database, double[] range, double wanted) {
        target(md, id, label, database, range, wanted, times(range[0]) + "–" + times(range[1]));
    }

    private void target(
            StringBuilder md,
            String id,
            String label,
            BenchDatabase database,
            double[] range,
            double wanted,
            String measured) {
        boolean met = range[0] >= wanted;
        if (!met) {
            missed.add(id);
        }
        md.append(String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s |%n",
                label,
                database.vendor().name(),
                measured,
                met ? "yes" : "**no**"));
    }

    // ---- lookups ----

    /** Results of one repetition, or of all ({@code repetition} -1). */
    private List<LoadResult> results(Predicate<LoadResult> which, int repetition) {
        return points.stream()
                .filter(p -> repetition < 0 || p.repetition() == repetition)
                .map(Point::result)
                .filter(which)
                .toList();
    }

    private static Predicate<LoadResult> matching(BenchDatabase database, Step step) {
        return r -> (r.database() == database || REDIS.contains(step.workload()))
                && r.workload().equals(step.workload())
                && r.threads() == step.callers().threads()
                && r.virtual() == step.callers().virtual()
                && r.counters() == step.counters();
    }

    /**
     * The lowest and highest ratio of a workload to a baseline, each within one repetition. Redis baselines come from
     * the first database's runs of the same repetition.
     */
    private Optional<double[]> range(
            BenchDatabase database, String workload, Callers callers, int counters, String baseline) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            Optional<Double> measured = ops(database, new Step(workload, callers, counters), repetition);
            Optional<Double> base = ops(database, new Step(baseline, callers, counters), repetition);
            if (measured.isPresent() && base.isPresent() && base.get() > 0) {
                double ratio = measured.get() / base.get();
                low = Math.min(low, ratio);
                high = Math.max(high, ratio);
            }
        }
        return high == 0 ? Optional.empty() : Optional.of(new double[] {low, high});
    }

    /**
     * The lowest and highest share of the limit, each within one repetition: increments/s ÷ (callers ÷ commit
     * latency), the commit latency being one caller's plain update's (1 ÷ its increments/s).
     */
    private Optional<double[]> shareOfLimit(BenchDatabase database, Step step) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            Optional<Double> measured = ops(database, step, repetition);
            Optional<Double> oneCommit = ops(database, new Step("plain-update", new Callers(1, false), 1), repetition);
            if (measured.isPresent() && oneCommit.isPresent() && oneCommit.get() > 0) {
                double share = measured.get() / (step.callers().threads() * oneCommit.get());
                low = Math.min(low, share);
                high = Math.max(high, share);
            }
        }
        return high == 0 ? Optional.empty() : Optional.of(new double[] {low, high});
    }

    private Optional<Double> ops(BenchDatabase database, Step step, int repetition) {
        return results(matching(database, step), repetition).stream()
                .findFirst()
                .map(LoadResult::operationsPerSecond);
    }

    static String times(double ratio) {
        return ratio >= 100 ? String.format(Locale.ROOT, "%,.0f×", ratio) : String.format(Locale.ROOT, "%.2f×", ratio);
    }
}
