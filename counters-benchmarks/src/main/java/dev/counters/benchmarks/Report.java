package dev.counters.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Runs everything and writes docs/benchmarks.md with its charts: JMH, the load matrix on three databases, sequences,
 * and how costs scale. Every number that matters is a ratio against a baseline measured in the same run.
 */
final class Report {

    private static final int[] THREADS = {1, 8, 32};

    private final Path docs;
    private final boolean quick;
    private final List<LoadResult> counting = new ArrayList<>();
    private final List<LoadResult> sequences = new ArrayList<>();
    private final List<ScaleSuite.Row> scale = new ArrayList<>();
    private List<JmhSuite.Score> jmh = List.of();
    private final ProductionSection production;
    private final OverheadSection overhead;

    /**
     * The relaxed section's workloads: the strategies and baselines, without the ones that only the production-like
     * section needs (several instances, durable Redis) or that the overhead section measures (JDBC by hand).
     */
    private static List<Workload.Kind> relaxedWorkloads(BenchDatabase database) {
        return Workloads.counting().stream()
                .filter(kind -> !kind.name().matches("node-\\d|redis-(always|everysec)|jdbc-.*|.*-keyed"))
                .filter(kind -> !kind.name().startsWith("redis") || database == BenchDatabase.MARIADB)
                .toList();
    }

    Report(Path docs, boolean quick) {
        this.docs = docs;
        this.quick = quick;
        this.production = new ProductionSection(quick);
        this.overhead = new OverheadSection(quick);
    }

    boolean allExact() {
        return errors.isEmpty()
                && counting.stream().allMatch(LoadResult::correct)
                && sequences.stream().allMatch(LoadResult::correct)
                && production.allExact()
                && overhead.allExact();
    }

    void run() throws Exception {
        long started = System.nanoTime();
        Duration warmup = Duration.ofMillis(quick ? 100 : 300);
        Duration duration = Duration.ofMillis(quick ? 300 : 1_000);
        production.run(this::attempt);
        overhead.run(this::attempt);
        log("JMH");
        jmh = JmhSuite.run(quick);
        for (BenchDatabase database : BenchDatabase.relaxed()) {
            int[] spreads = database == BenchDatabase.MARIADB ? new int[] {1, 100} : new int[] {1};
            for (Workload.Kind kind : relaxedWorkloads(database)) {
                for (int counters : spreads) {
                    for (int threads : THREADS) {
                        attempt(
                                kind.name() + " on " + database,
                                () -> counting.add(
                                        logged(LoadDriver.run(database, kind, threads, counters, warmup, duration))));
                    }
                }
            }
            for (SequenceWorkload.Kind kind : Workloads.sequences()) {
                for (int threads : new int[] {1, 8}) {
                    attempt(
                            kind.name() + " on " + database,
                            () -> sequences.add(
                                    logged(LoadDriver.runSequence(database, kind, threads, warmup, duration))));
                }
            }
        }
        log("scale");
        // Each step on its own: a measurement that fails is reported, and the hours before it are not lost.
        attempt(
                "buffered flush on H2",
                () -> scale.addAll(ScaleSuite.bufferedFlush(
                        BenchDatabase.H2, quick ? new long[] {1_000} : new long[] {1_000, 100_000, 1_000_000})));
        attempt(
                "buffered flush on MariaDB",
                () -> scale.addAll(ScaleSuite.bufferedFlush(
                        BenchDatabase.MARIADB, quick ? new long[] {1_000} : new long[] {1_000, 100_000})));
        attempt(
                "sharded reads",
                () -> scale.addAll(ScaleSuite.cellReads(
                        BenchDatabase.MARIADB, "sharded read over shards", "s", 1, 16, 128, 1024)));
        attempt(
                "node reads",
                () -> scale.addAll(ScaleSuite.cellReads(
                        BenchDatabase.MARIADB, "node read over nodes", "n:node", 1, 10, 100, 1000)));
        attempt(
                "delta-log reads",
                () -> scale.addAll(ScaleSuite.deltaLogReads(
                        BenchDatabase.MARIADB,
                        quick ? new int[] {100, 1_000} : new int[] {100, 1_000, 10_000, 100_000})));
        write(Duration.ofNanos(System.nanoTime() - started));
    }

    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    /** How sections run their steps: a step that fails is reported, and the rest still run. */
    @FunctionalInterface
    interface Attempts {
        void attempt(String what, Step step);
    }

    private void attempt(String what, Step step) {
        try {
            step.run();
        } catch (Exception e) {
            System.out.println("FAILED " + what + ": " + e);
            errors.add(what + ": " + e);
        }
    }

    static LoadResult logged(LoadResult result) {
        System.out.println(result.line());
        return result;
    }

    static void log(String what) {
        System.out.println("---- " + what);
    }

    // ---- the document ----

    /**
     * The line that opens a report: the command that generated it ({@code args}: its {@code -Dbenchmark.args}, or
     * empty for this report), when, and how long it took.
     */
    static String generated(String args, Duration took, boolean quick) {
        return "Generated by `./mvnw -pl counters-benchmarks -am verify -DskipTests -Pbenchmark-report"
                + (args.isEmpty() ? "" : " -Dbenchmark.args=" + args) + "` on " + LocalDate.now() + " in "
                + took.toMinutes() + " min " + took.toSecondsPart() + " s"
                + (quick ? " (quick mode: numbers are rough)" : "") + ". Do not edit: rerun it.\n\n";
    }

    private void write(Duration took) throws IOException {
        Path charts = docs.resolve("benchmarks");
        Files.createDirectories(charts);
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks\n\n");
        md.append(generated("", took, quick));
        md.append(SEE_ALSO);
        md.append(RateLimitReport.carriedSummary(docs.resolve("benchmarks.md")));
        machine(md);
        if (!errors.isEmpty()) {
            md.append("## Runs that failed\n\n");
            errors.forEach(error -> md.append("- ").append(error).append('\n'));
            md.append('\n');
        }
        production.write(md, charts);
        overhead.write(md);
        md.append("## Relaxed mode\n\nThe servers the tests use: no disk sync at commit (MariaDB"
                + " `innodb_flush_log_at_trx_commit=2`, PostgreSQL `fsync=off`), shorter points. What it shows is"
                + " CPU cost on a machine the databases share, not what a hot row costs in production.\n\n");
        targets(md);
        jmhSection(md);
        for (BenchDatabase database : BenchDatabase.relaxed()) {
            loadSection(md, charts, database);
        }
        sequenceSection(md);
        scaleSection(md);
        Files.writeString(docs.resolve("benchmarks.md"), withContents(md.toString()));
        System.out.println("Wrote " + docs.resolve("benchmarks.md"));
    }

    /**
     * The document with a table of contents of its sections before the first of them. Anchors are GitHub's: lower
     * case, punctuation dropped, spaces to hyphens, a repeated one numbered (counting the headings of every level).
     */
    static String withContents(String md) {
        StringBuilder contents = new StringBuilder();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : md.split("\n")) {
            int level = line.indexOf(' ');
            if (!line.startsWith("#") || level < 1 || !line.substring(0, level).matches("#+")) {
                continue;
            }
            String title = line.substring(level + 1).strip();
            String anchor = title.toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N} _-]", "")
                    .replace(' ', '-');
            int count = seen.merge(anchor, 1, Integer::sum);
            if (level == 2) {
                contents.append("- [")
                        .append(title)
                        .append("](#")
                        .append(count == 1 ? anchor : anchor + "-" + (count - 1))
                        .append(")\n");
            }
        }
        int first = md.indexOf("\n## ");
        return first < 0 ? md : md.substring(0, first + 1) + contents + "\n" + md.substring(first + 1);
    }

    /** The reports generated by commands of their own, which this one does not run. */
    static final String SEE_ALSO = "Five reports are generated on their own: [benchmarks-redis.md](benchmarks-redis.md)"
            + " (`-Dbenchmark.args=redis`: `monotonic` with its cache on Redis, three instances, beside Redis `INCR`"
            + " and the database strategies), [benchmarks-galera.md](benchmarks-galera.md)"
            + " (`-Dbenchmark.args=galera`: every strategy on a three-node Galera cluster beside one node),"
            + " [benchmarks-bounded.md](benchmarks-bounded.md) (`-Dbenchmark.args=bounded`: bounded counters beside"
            + " the guarded update and Redis's bounded increment, and sell-outs),"
            + " [benchmarks-ratelimits.md](benchmarks-ratelimits.md) (`-Dbenchmark.args=ratelimits`: rate limiters"
            + " beside Bucket4j's JDBC limiter, summed up below) and [benchmarks-jpa.md](benchmarks-jpa.md)"
            + " (`-Dbenchmark.args=jpa`: `@CountersSequence` entity ids beside Hibernate's generators through Spring"
            + " Data JPA, and membership counters beside a hand-written `INSERT` + `UPDATE`).\n\n";

    private void machine(StringBuilder md) {
        md.append("## Machine and settings\n\n");
        md.append("- CPU: ")
                .append(cpuModel())
                .append(", ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores available to the JVM\n");
        md.append("- OS: ")
                .append(System.getProperty("os.name"))
                .append(' ')
                .append(System.getProperty("os.version"))
                .append("; JVM: ")
                .append(System.getProperty("java.vm.name"))
                .append(' ')
                .append(System.getProperty("java.version"))
                .append('\n');
        for (BenchDatabase database : BenchDatabase.relaxed()) {
            md.append("- ").append(database.description).append('\n');
        }
        md.append("- Everything runs on this one machine: the databases compete with the benchmark for the same cores,"
                + " and nothing crosses a real network. Absolute numbers move from run to run; the ratios between"
                + " workloads measured in the same run are what to compare.\n");
        md.append("- Load runs: ")
                .append(quick ? "100 ms warm-up, 300 ms" : "300 ms warm-up, 1 s")
                .append(" measured per point; latency from HdrHistogram; statements counted by a JDBC proxy"
                        + " (each execute and each commit is one). Every run ends with the exactness check: stored"
                        + " total = acknowledged increments, for every counter.\n\n");
    }

    /** Why a target can be missed, and what would close it; printed only for the targets this run missed. */
    private static final java.util.Map<String, String> WHY_MISSED = java.util.Map.of(
            "bufferedByName",
                    "`counters.increment(name)` first finds the handle: the name's hash and a comparison"
                            + " in an array of recently used handles, with a Caffeine cache behind it, about as long again as"
                            + " the LongAdder add. Hot loops should keep a `Counter` handle (`bufferedHandle`).",
            "bufferedHandle",
                    "A handle's increment of 1 is one add to its counter's slot, which also counts it;"
                            + " around it, the checks that the delta is not 0 and the slot still in use, and a chain of"
                            + " dependent loads (handle, incrementer, slot) that LongAdder's benchmark does not have. The"
                            + " add's atomic instruction waits for them, so they show at 1 thread; with 2 threads they"
                            + " overlap with the other thread's adds.",
            "plain-update",
                    "On this machine the database and the benchmark share 2 cores, so a strategy that"
                            + " spreads the row lock (sharded) or shares commits (buffered-durable) runs into the CPU"
                            + " rather than the lock; and with `innodb_flush_log_at_trx_commit=2` a plain commit costs no"
                            + " disk sync, which is what these strategies save most of. Closing it: a database on its own"
                            + " cores with durable commits (`=1`), where a hot row's commit rate is bound by fsync.",
            "jpa-version",
                    "atomic and optimistic counters write the hot row once per increment, as the JPA"
                            + " baseline does; they win by not losing work to conflicts, not by avoiding the row, so their"
                            + " margin over JPA depends on how often JPA's attempts conflict. The strategies that avoid the"
                            + " hot row (buffered, sharded, node, delta-log, monotonic) are the ones the 20× target is for.",
            "blockSequence",
                    "Until blocks have grown with the draw rate, a new block is due every few"
                            + " microseconds; its reservation runs on a virtual thread that competes for the 2 cores with the"
                            + " benchmark's threads, so callers wait at block boundaries. A larger block-size closes it from"
                            + " the start (the 100,000 row).");

    private final java.util.Set<String> missed = new java.util.LinkedHashSet<>();
    private final java.util.Set<String> errors = new java.util.LinkedHashSet<>();

    private void targets(StringBuilder md) {
        md.append("## Targets\n\n| target | measured | met |\n|---|---|---|\n");
        for (int threads : new int[] {1, 2}) {
            for (String buffered : new String[] {"bufferedHandle", "bufferedByName"}) {
                double wanted = buffered.equals("bufferedHandle") ? 0.5 : 0.3; // a name is validated and looked up
                ratio(jmhScore(buffered, threads), jmhScore("longAdder", threads))
                        .ifPresent(r -> target(
                                md,
                                buffered,
                                "buffered (`" + buffered + "`) ≥ " + Math.round(wanted * 100) + " % of LongAdder, "
                                        + threads + " thread(s), 1 counter",
                                r,
                                wanted));
            }
        }
        hot(md, "buffered-durable", "plain-update", 10, "durable-acknowledged buffered ≥ 10× plain update");
        hot(md, "sharded", "plain-update", 3, "sharded (16 shards) ≥ 3× plain update");
        hot(md, "optimistic", "plain-update", 1, "optimistic ≥ plain update");
        for (Workload.Kind kind : Workloads.counting()) {
            if (!kind.name().equals("jpa-version")
                    && !kind.name().equals("plain-update")
                    && !kind.name().equals("redis-incr")) {
                hot(md, kind.name(), "jpa-version", 20, kind.name() + " ≥ 20× JPA @Version");
            }
        }
        for (int threads : new int[] {1, 2}) {
            for (String blockSize : new String[] {"1000", "100000"}) {
                ratio(
                                jmhScore("blockSequence", threads, "blockSize=" + blockSize),
                                jmhScore("SequenceBenchmarks.atomicLong", threads, "blockSize=" + blockSize))
                        .ifPresent(r -> target(
                                md,
                                "blockSequence",
                                "block sequence (blocks of " + blockSize + ") ≥ 50 % of AtomicLong, " + threads
                                        + " thread(s)",
                                r,
                                0.5));
            }
        }
        md.append('\n');
        if (!missed.isEmpty()) {
            md.append("### Why targets were missed\n\n");
            for (String id : missed) {
                md.append("- **")
                        .append(id)
                        .append("**: ")
                        .append(WHY_MISSED.getOrDefault(
                                id, "see the tables below; this run's numbers for it are the ones to investigate."))
                        .append('\n');
            }
            md.append('\n');
        }
    }

    private void hot(StringBuilder md, String workload, String baseline, double wanted, String label) {
        ratio(loadOps(BenchDatabase.MARIADB, workload, 1, 32), loadOps(BenchDatabase.MARIADB, baseline, 1, 32))
                .ifPresent(r -> target(md, baseline, label + " (MariaDB, one hot counter, 32 threads)", r, wanted));
    }

    private void target(StringBuilder md, String id, String label, double ratio, double wanted) {
        boolean met = ratio >= wanted;
        if (!met) {
            missed.add(id);
        }
        md.append("| ")
                .append(label)
                .append(" | ")
                .append(times(ratio))
                .append(" | ")
                .append(met ? "yes" : "**no**")
                .append(" |\n");
    }

    private void jmhSection(StringBuilder md) {
        md.append("## In process (JMH)\n\n");
        md.append("One fork, throughput of all threads together, allocation from `-prof gc`"
                + " (`gc.alloc.rate.norm`). `bufferedByName` is `counters.increment(name)`; `bufferedHandle` is"
                + " `counter.increment()` on a handle the caller keeps.\n\n");
        md.append("| benchmark | params | threads | ops/s | ± | bytes/op |\n|---|---|---|---|---|---|\n");
        for (JmhSuite.Score score : jmh) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %d | %,.0f | %,.0f | %.1f |%n",
                    score.benchmark(),
                    score.params(),
                    score.threads(),
                    score.opsPerSecond(),
                    score.error(),
                    score.bytesPerOperation()));
        }
        md.append('\n');
    }

    private void loadSection(StringBuilder md, Path charts, BenchDatabase database) throws IOException {
        md.append("## Increments on ").append(database.description).append("\n\n");
        for (int counters : new int[] {1, 100}) {
            List<LoadResult> rows = counting.stream()
                    .filter(r -> r.database() == database && r.counters() == counters)
                    .toList();
            if (rows.isEmpty()) {
                continue;
            }
            String file = database.name().toLowerCase(Locale.ROOT) + "-" + (counters == 1 ? "hot" : counters) + ".png";
            Charts.throughputByThreads(
                    charts,
                    file,
                    database.name() + ": " + (counters == 1 ? "one hot counter" : counters + " counters"),
                    rows);
            md.append("### ")
                    .append(counters == 1 ? "One hot counter" : counters + " counters")
                    .append("\n\n");
            md.append("![throughput by threads](benchmarks/").append(file).append(")\n\n");
            md.append("| workload | threads | increments/s | × plain update | p50 µs | p99 µs | p99.9 µs |"
                    + " statements/increment | failures | exact |\n|---|---|---|---|---|---|---|---|---|---|\n");
            for (LoadResult r : rows) {
                String vsPlain = ratio(
                                Optional.of(r.operationsPerSecond()),
                                loadOps(database, "plain-update", counters, r.threads()))
                        .map(Report::times)
                        .orElse("");
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %d | %,.0f | %s | %.0f | %.0f | %.0f | %.3f | %d | %s |%n",
                        r.workload(),
                        r.threads(),
                        r.operationsPerSecond(),
                        vsPlain,
                        r.micros(50),
                        r.micros(99),
                        r.micros(99.9),
                        r.statementsPerOperation(),
                        r.failures(),
                        r.correct() ? "yes" : "**NO**"));
            }
            md.append('\n');
        }
    }

    private void sequenceSection(StringBuilder md) {
        md.append("## Sequences\n\nNumbers per second; every run checks that no number was handed out twice and that"
                + " each thread's numbers strictly increase.\n\n");
        md.append("| database | workload | threads | numbers/s | p50 µs | p99 µs | statements/number | correct |\n"
                + "|---|---|---|---|---|---|---|---|\n");
        for (LoadResult r : sequences) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %d | %,.0f | %.1f | %.1f | %.4f | %s |%n",
                    r.database().name(),
                    r.workload(),
                    r.threads(),
                    r.operationsPerSecond(),
                    r.micros(50),
                    r.micros(99),
                    r.statementsPerOperation(),
                    r.correct() ? "yes" : "**NO**"));
        }
        md.append('\n');
    }

    private void scaleSection(StringBuilder md) {
        md.append("## How cost grows\n\n| measure | database | size | cost |\n|---|---|---|---|\n");
        for (ScaleSuite.Row row : scale) {
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %,d | %,.1f %s |%n",
                    row.measure(),
                    row.database().name(),
                    row.size(),
                    row.value(),
                    row.unit()));
        }
        md.append('\n');
    }

    // ---- lookups ----

    private Optional<Double> loadOps(BenchDatabase database, String workload, int counters, int threads) {
        return find(
                counting,
                r -> r.database() == database
                        && r.workload().equals(workload)
                        && r.counters() == counters
                        && r.threads() == threads);
    }

    private static Optional<Double> find(List<LoadResult> results, Predicate<LoadResult> which) {
        return results.stream().filter(which).findFirst().map(LoadResult::operationsPerSecond);
    }

    private Optional<Double> jmhScore(String benchmark, int threads) {
        return jmhScore(benchmark, threads, "counters=1");
    }

    private Optional<Double> jmhScore(String benchmark, int threads, String params) {
        return jmh.stream()
                .filter(s -> s.benchmark().endsWith(benchmark)
                        && s.threads() == threads
                        && s.params().equals(params))
                .findFirst()
                .map(JmhSuite.Score::opsPerSecond);
    }

    private static Optional<Double> ratio(Optional<Double> measured, Optional<Double> baseline) {
        return measured.flatMap(m -> baseline.filter(b -> b > 0).map(b -> m / b));
    }

    private static String times(double ratio) {
        return ratio >= 100 ? String.format(Locale.ROOT, "%,.0f×", ratio) : String.format(Locale.ROOT, "%.2f×", ratio);
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
