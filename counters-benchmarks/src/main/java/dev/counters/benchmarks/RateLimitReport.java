package dev.counters.benchmarks;

import dev.counters.RateLimit;
import dev.counters.testing.Admissions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Writes docs/benchmarks-ratelimits.md, and its summary into docs/benchmarks.md: this library's rate limiters beside
 * Bucket4j's JDBC limiter on the production-like MariaDB and PostgreSQL, in the same run, on the same servers and pool
 * sizes. Four measurements: a hot key nothing is refused on (decisions per second), a hot key at its limit (admitted
 * against the limit), 10,000 keys (decisions per second), and four processes on a hot key, one killed with
 * {@code kill -9} and started again (admissions against the bound). As {@link BoundedReport}: a first point thrown
 * away, then the throughput points twice, the second time in reverse order; each ratio within one repetition.
 */
final class RateLimitReport {

    static final List<BenchDatabase> DATABASES = List.of(BenchDatabase.MARIADB_DURABLE, BenchDatabase.POSTGRES_DURABLE);
    static final int CALLERS = 64;
    static final int REPETITIONS = 2;
    static final int KEYS = 10_000;
    static final int PROCESSES = 4;
    static final int PROCESS_THREADS = 8;
    /** So high that nothing is refused: what a decision costs. */
    static final RateLimitWorkload.Limit UNREFUSED = new RateLimitWorkload.Limit(100_000_000, Duration.ofSeconds(1));
    /** A hot key at its limit, in one process and in four. */
    static final RateLimitWorkload.Limit AT_LIMIT = new RateLimitWorkload.Limit(200, Duration.ofSeconds(1));

    static final RateLimitWorkload.Limit PROCESS_LIMIT = new RateLimitWorkload.Limit(200, Duration.ofSeconds(1));
    /** Ours ≥ this × Bucket4j on the hot key; on 10,000 keys, ≥ {@link #KEYS_TARGET}×. */
    static final double HOT_TARGET = 20;

    static final double KEYS_TARGET = 1;

    static final String HOT = "hot";
    static final String LIMITED = "at-limit";
    static final String SPREAD = "10k-keys";
    static final String PROCESSES_SCENARIO = "processes";

    static List<RateLimitWorkload.Kind> kinds() {
        return List.of(
                new RateLimitWorkload.Kind(
                        "gcra",
                        "this library, `RateLimit.of(permits, period)`: GCRA, one guarded statement per decision, a hot"
                                + " key's concurrent decisions combined",
                        false,
                        OurRateLimitWorkload.of(RateLimit.Algorithm.GCRA)),
                new RateLimitWorkload.Kind(
                        "fixed-window",
                        "this library, `withAlgorithm(FIXED_WINDOW)`: a bounded counter per key and window (escrow)",
                        true,
                        OurRateLimitWorkload.of(RateLimit.Algorithm.FIXED_WINDOW)),
                new RateLimitWorkload.Kind(
                        "bucket4j",
                        "baseline: Bucket4j " + Bucket4jVersion.CORE
                                + " JDBC, select-for-update `ProxyManager` (MariaDB:"
                                + " `bucket4j_jdk17-mysql` " + Bucket4jVersion.MYSQL + ", PostgreSQL:"
                                + " `bucket4j_jdk17-postgresql`), `capacity(permits).refillGreedy(permits, period)`,"
                                + " requests timing out after " + Bucket4jWorkload.TIMEOUT.toSeconds() + " s",
                        false,
                        Bucket4jWorkload.opener()));
    }

    static RateLimitWorkload.Kind kind(String name) {
        return kinds().stream()
                .filter(kind -> kind.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown rate-limit workload '" + name + "'"));
    }

    private record Point(int repetition, RateLimitDriver.Result result) {}

    private final Path docs;
    private final boolean quick;
    private final List<BenchDatabase> databases;
    private final List<Point> points = new ArrayList<>();
    /** The machine's load average (1 min) when the run started and ended: others' work beside it, if above 2. */
    private String load = "";

    RateLimitReport(Path docs, boolean quick) {
        this(docs, quick, DATABASES);
    }

    RateLimitReport(Path docs, boolean quick, List<BenchDatabase> databases) {
        this.docs = docs;
        this.quick = quick;
        this.databases = databases;
    }

    /** Whether every run kept within its bound (errors are reported, not counted here). */
    boolean allWithinBounds() {
        return points.stream().map(Point::result).allMatch(result -> result.overAdmitted() == 0);
    }

    List<RateLimitDriver.Result> results() {
        return points.stream().map(Point::result).toList();
    }

    /** Measures everything; {@link #write} then writes the documents. */
    void measure() throws Exception {
        Duration warmup = Duration.ofMillis(quick ? 200 : 2_000);
        Duration duration = Duration.ofMillis(quick ? 400 : 4_000);
        Duration limited = Duration.ofMillis(quick ? 1_000 : 8_000);
        Duration processes = Duration.ofMillis(quick ? 3_000 : 12_000);
        List<RateLimitWorkload.Kind> kinds = kinds();
        List<RateLimitWorkload.Kind> spread = kinds.stream()
                .filter(kind -> !kind.fixedWindow()) // a bounded counter per key and window: not for many keys
                .toList();
        // A JVM's first point runs while the JIT is still compiling: run one and throw it away.
        RateLimitDriver.run(databases.getFirst(), kinds.getFirst(), HOT, UNREFUSED, CALLERS, 1, warmup, duration);
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            for (RateLimitWorkload.Kind kind : inOrder(kinds, repetition)) {
                for (BenchDatabase database : databases) {
                    add(
                            repetition,
                            logged(RateLimitDriver.run(database, kind, HOT, UNREFUSED, CALLERS, 1, warmup, duration)));
                }
            }
            for (RateLimitWorkload.Kind kind : inOrder(spread, repetition)) {
                for (BenchDatabase database : databases) {
                    add(
                            repetition,
                            logged(RateLimitDriver.run(
                                    database, kind, SPREAD, UNREFUSED, CALLERS, KEYS, warmup, duration)));
                }
            }
        }
        for (RateLimitWorkload.Kind kind : kinds) {
            for (BenchDatabase database : databases) {
                add(0, logged(RateLimitDriver.run(database, kind, LIMITED, AT_LIMIT, CALLERS, 1, warmup, limited)));
                add(
                        0,
                        logged(RateLimitProcesses.run(
                                database, kind, PROCESS_LIMIT, PROCESSES, PROCESS_THREADS, processes)));
            }
        }
    }

    void run() throws Exception {
        long started = System.nanoTime();
        String before = loadAverage();
        measure();
        load = before + " at the start, " + loadAverage() + " at the end";
        write(Duration.ofNanos(System.nanoTime() - started));
    }

    void write(Duration took) throws IOException {
        Files.writeString(docs.resolve("benchmarks-ratelimits.md"), markdown(took));
        Path benchmarks = docs.resolve("benchmarks.md");
        if (Files.exists(benchmarks)) {
            Files.writeString(benchmarks, withSummary(Files.readString(benchmarks), summary()));
        }
    }

    /** The one-minute load average, from /proc/loadavg; "unknown" elsewhere. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    void add(int repetition, RateLimitDriver.Result result) {
        points.add(new Point(repetition, result));
    }

    private static RateLimitDriver.Result logged(RateLimitDriver.Result result) {
        System.out.println(result.line());
        return result;
    }

    private static <T> List<T> inOrder(List<T> kinds, int repetition) {
        List<T> order = new ArrayList<>(kinds);
        if (repetition % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }

    // ---- the summary in docs/benchmarks.md ----

    static final String SUMMARY_START = "<!-- ratelimits: written by -Dbenchmark.args=ratelimits -->";
    static final String SUMMARY_END = "<!-- /ratelimits -->";

    /**
     * {@code benchmarks} with {@code summary} in place of the one it had, or after its first paragraph of links (the
     * main report keeps it when it writes the document again: {@link #carriedSummary}).
     */
    static String withSummary(String benchmarks, String summary) {
        int start = benchmarks.indexOf(SUMMARY_START);
        if (start >= 0) {
            int end = benchmarks.indexOf(SUMMARY_END, start) + SUMMARY_END.length();
            return benchmarks.substring(0, start) + summary + benchmarks.substring(end);
        }
        int links = benchmarks.indexOf(Report.SEE_ALSO);
        int at = links >= 0 ? links + Report.SEE_ALSO.length() : benchmarks.indexOf("\n- [") + 1;
        return benchmarks.substring(0, at) + summary + "\n\n" + benchmarks.substring(at);
    }

    /** The summary block of an existing docs/benchmarks.md, with its blank line after; empty if none. */
    static String carriedSummary(Path benchmarks) throws IOException {
        if (!Files.exists(benchmarks)) {
            return "";
        }
        String md = Files.readString(benchmarks);
        int start = md.indexOf(SUMMARY_START);
        int end = md.indexOf(SUMMARY_END);
        return start < 0 || end < start ? "" : md.substring(start, end + SUMMARY_END.length()) + "\n\n";
    }

    String summary() {
        StringBuilder md = new StringBuilder(SUMMARY_START).append('\n');
        md.append("**Rate limits beside Bucket4j** ([benchmarks-ratelimits.md](benchmarks-ratelimits.md), ")
                .append(quick ? "quick mode, " : "")
                .append("production-like servers, ")
                .append(CALLERS)
                .append(" callers; lowest–highest of the repetitions):\n\n");
        md.append("| measurement | database | gcra | bucket4j | gcra ÷ bucket4j |\n|---|---|---|---|---|\n");
        for (BenchDatabase database : databases) {
            summaryRow(md, "hot key, decisions/s", database, HOT, RateLimitDriver.Result::decisionsPerSecond);
            summaryRow(md, "10,000 keys, decisions/s", database, SPREAD, RateLimitDriver.Result::decisionsPerSecond);
        }
        for (BenchDatabase database : databases) {
            over(database, LIMITED, "gcra")
                    .ifPresent(ours -> over(database, LIMITED, "bucket4j")
                            .ifPresent(theirs -> md.append(String.format(
                                    Locale.ROOT,
                                    "| hot key at %s: over-admitted, admitted ÷ limit | %s | %s | %s | — |%n",
                                    limitText(AT_LIMIT),
                                    database.vendor().name(),
                                    ours,
                                    theirs))));
            over(database, PROCESSES_SCENARIO, "gcra")
                    .ifPresent(ours -> over(database, PROCESSES_SCENARIO, "bucket4j")
                            .ifPresent(theirs -> md.append(String.format(
                                    Locale.ROOT,
                                    "| %d processes, one killed -9: over-admitted | %s | %s | %s | — |%n",
                                    PROCESSES,
                                    database.vendor().name(),
                                    ours,
                                    theirs))));
        }
        return md.append(SUMMARY_END).toString();
    }

    private void summaryRow(
            StringBuilder md,
            String label,
            BenchDatabase database,
            String scenario,
            ToDoubleFunction<RateLimitDriver.Result> value) {
        List<RateLimitDriver.Result> ours = results(database, scenario, "gcra");
        List<RateLimitDriver.Result> theirs = results(database, scenario, "bucket4j");
        if (ours.isEmpty() || theirs.isEmpty()) {
            return;
        }
        md.append("| ")
                .append(label)
                .append(" | ")
                .append(database.vendor().name())
                .append(" | ")
                .append(range(ours, value, "%,.0f"))
                .append(" | ")
                .append(range(theirs, value, "%,.0f"))
                .append(" | ")
                .append(ratios(database, scenario, "gcra", "bucket4j")
                        .map(RateLimitReport::rangeText)
                        .orElse(""))
                .append(" |\n");
    }

    /** "0 (98 %)": over-admitted in the worst span, and the share of the limit admitted. */
    private Optional<String> over(BenchDatabase database, String scenario, String workload) {
        return results(database, scenario, workload).stream()
                .findFirst()
                .map(result -> scenario.equals(PROCESSES_SCENARIO)
                        ? String.format(Locale.ROOT, "%,d", result.overAdmitted())
                        : String.format(
                                Locale.ROOT, "%,d (%.0f %%)", result.overAdmitted(), 100 * result.shareOfLimit()));
    }

    // ---- the document ----

    String markdown(Duration took) {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks: rate limits beside Bucket4j\n\n");
        md.append(Report.generated("ratelimits", took, quick));
        for (BenchDatabase database : databases) {
            md.append("- **").append(database.description).append(".**\n");
        }
        md.append("- Both limiters on the same servers, each point on tables of its own, with a pool of ")
                .append(CALLERS + 8)
                .append(" connections for ")
                .append(CALLERS)
                .append(" callers. ")
                .append(quick ? "Short points" : "2 s of warm-up (on keys of their own), then 4 s measured")
                .append("; a first point thrown away, then the throughput plan twice, the second time in reverse"
                        + " order; the hot key at its limit and the processes once.\n");
        md.append("- The machine has ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, shared by the client (this JVM) and the database")
                .append(load.isEmpty() ? "" : "; its load average (1 min) was " + load)
                .append(". Read the ratios, not the absolute numbers.\n\n");
        md.append("| workload | what |\n|---|---|\n");
        for (RateLimitWorkload.Kind kind : kinds()) {
            md.append("| `")
                    .append(kind.name())
                    .append("` | ")
                    .append(kind.description())
                    .append(" |\n");
        }
        md.append('\n');
        targets(md);
        throughput(md, HOT, "Hot key, nothing refused");
        throughput(md, SPREAD, "10,000 keys, nothing refused");
        bounds(md);
        return Report.withContents(md.toString());
    }

    private void targets(StringBuilder md) {
        md.append("## Targets\n\n| target | database | measured (range) | met |\n|---|---|---|---|\n");
        for (String[] target : List.of(
                new String[] {HOT, "hot key", Double.toString(HOT_TARGET)},
                new String[] {SPREAD, "10,000 keys", Double.toString(KEYS_TARGET)})) {
            double wanted = Double.parseDouble(target[2]);
            for (BenchDatabase database : databases) {
                ratios(database, target[0], "gcra", "bucket4j")
                        .ifPresent(range -> md.append(String.format(
                                Locale.ROOT,
                                "| gcra ≥ %s bucket4j, %s, %d callers | %s | %s | %s |%n",
                                ProductionSection.times(wanted),
                                target[1],
                                CALLERS,
                                database.vendor().name(),
                                rangeText(range),
                                range[0] >= wanted ? "yes" : "**no**")));
            }
        }
        for (String scenario : List.of(LIMITED, PROCESSES_SCENARIO)) {
            for (RateLimitWorkload.Kind kind : kinds()) {
                if (kind.name().equals("bucket4j")) {
                    continue;
                }
                for (BenchDatabase database : databases) {
                    results(database, scenario, kind.name()).stream()
                            .findFirst()
                            .ifPresent(result -> md.append(String.format(
                                    Locale.ROOT,
                                    "| %s admits no more than its bound, %s | %s | %,d over | %s |%n",
                                    kind.name(),
                                    scenario.equals(LIMITED)
                                            ? "hot key at its limit"
                                            : PROCESSES + " processes, one killed -9",
                                    database.vendor().name(),
                                    result.overAdmitted(),
                                    result.overAdmitted() == 0 ? "yes" : "**no**")));
                }
            }
        }
        md.append('\n');
    }

    private void throughput(StringBuilder md, String scenario, String title) {
        md.append("## ").append(title).append("\n\n");
        md.append(String.format(
                Locale.ROOT,
                "%s, limit %s (nothing is refused): what a decision costs.%n%n",
                scenario.equals(HOT) ? "One key" : String.format(Locale.ROOT, "%,d keys taken uniformly", KEYS),
                limitText(UNREFUSED)));
        md.append("| workload | database | decisions/s | ÷ bucket4j | p50 ms | p99 ms | statements per decision |"
                + " errors |\n|---|---|---|---|---|---|---|---|\n");
        for (RateLimitWorkload.Kind kind : kinds()) {
            for (BenchDatabase database : databases) {
                List<RateLimitDriver.Result> all = results(database, scenario, kind.name());
                if (all.isEmpty()) {
                    continue;
                }
                md.append("| `")
                        .append(kind.name())
                        .append("` | ")
                        .append(database.vendor().name())
                        .append(" | ")
                        .append(cells(all, RateLimitDriver.Result::decisionsPerSecond, "%,.0f"))
                        .append(" | ")
                        .append(
                                kind.name().equals("bucket4j")
                                        ? "—"
                                        : ratios(database, scenario, kind.name(), "bucket4j")
                                                .map(RateLimitReport::rangeText)
                                                .orElse(""))
                        .append(" | ")
                        .append(cells(all, result -> result.micros(50) / 1_000, "%.2f"))
                        .append(" | ")
                        .append(cells(all, result -> result.micros(99) / 1_000, "%.2f"))
                        .append(" | ")
                        .append(cells(all, RateLimitDriver.Result::statementsPerDecision, "%.2f"))
                        .append(" | ")
                        .append(cells(all, result -> result.errors(), "%,.0f"))
                        .append(" |\n");
            }
        }
        md.append("\nEach cell lists the repetitions. \"÷ bucket4j\": the lowest and highest ratio within one"
                + " repetition. Statements are those sent in the measured window, commits included, per decision."
                + " \"Errors\": decisions that threw (or, for this library, failed open or closed).");
        if (scenario.equals(SPREAD)) {
            md.append(" Bucket4j's first use of a key is `INSERT IGNORE` (MySQL, MariaDB) or `INSERT … ON CONFLICT DO"
                    + " NOTHING` (PostgreSQL) in the decision's transaction; on InnoDB, concurrent first uses wait on"
                    + " each other's gap locks, up to `innodb_lock_wait_timeout`, and its errors here are its"
                    + " requests timing out.");
        }
        md.append("\n\n");
    }

    private void bounds(StringBuilder md) {
        md.append("## Admitted against the bound\n\n");
        md.append(String.format(
                Locale.ROOT,
                "- **Hot key at its limit:** %d callers in one process on one key limited to %s, %s. \n"
                        + "- **%d processes, one killed:** %d JVMs of %d callers each on one key limited to %s, %s;"
                        + " a third of the way through one is killed with `kill -9`, whatever it had in flight, and"
                        + " started again.%n%n",
                CALLERS,
                limitText(AT_LIMIT),
                quick ? "a short run" : "8 s",
                PROCESSES,
                PROCESSES,
                PROCESS_THREADS,
                limitText(PROCESS_LIMIT),
                quick ? "a short run" : "12 s"));
        md.append("| run | workload | database | decisions | admitted | ÷ limit | most in a period | bound |"
                + " over-admitted | errors |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (String scenario : List.of(LIMITED, PROCESSES_SCENARIO)) {
            for (RateLimitWorkload.Kind kind : kinds()) {
                for (BenchDatabase database : databases) {
                    for (RateLimitDriver.Result result : results(database, scenario, kind.name())) {
                        md.append(String.format(
                                Locale.ROOT,
                                "| %s | `%s` | %s | %s | %,d | %.0f %% | %,d | %,d | %s | %,d |%n",
                                scenario.equals(LIMITED) ? "at its limit" : PROCESSES + " processes",
                                kind.name(),
                                database.vendor().name(),
                                scenario.equals(LIMITED) ? String.format(Locale.ROOT, "%,d", result.decisions()) : "—",
                                result.admitted(),
                                100 * result.shareOfLimit(),
                                result.most(),
                                result.bound(),
                                result.overAdmitted() == 0 ? "0" : "**" + result.overAdmitted() + "**",
                                result.errors()));
                    }
                }
            }
        }
        md.append("\nEvery admission is logged with its span, from just before the call to just after it returned, on"
                + " the machine's wall clock (which every process reads alike), widened by "
                + Admissions.CLOCK_TOLERANCE_MICROS / 1_000
                + " ms on each side: this library decides on its process's reading of the database's clock, within"
                + " half a round trip of the wall clock. An admission counts toward a stretch of time only when its"
                + " whole widened span lies inside, so a count over the bound proves over-admission whatever the"
                + " latencies. \"Most in a period\": the most admissions in any stretch of one period (fixed"
                + " window: in one window of the epoch). \"Bound\": what the limit allows there, the same for both"
                + " limiters: `permits + burst − 1` for GCRA and Bucket4j's bucket (burst = capacity = permits), the"
                + " permits for a fixed window. \"÷ limit\": admitted over what the limit lets through in the run (its"
                + " rate over the run plus the full bucket or window it starts with). In the processes' run the"
                + " refusals are not logged.\n");
    }

    // ---- lookups ----

    private static String limitText(RateLimitWorkload.Limit limit) {
        return String.format(
                Locale.ROOT, "%,d per %d s", limit.permits(), limit.period().toSeconds());
    }

    private List<RateLimitDriver.Result> results(BenchDatabase database, String scenario, String workload) {
        return points.stream()
                .map(Point::result)
                .filter(result -> result.database() == database
                        && result.scenario().equals(scenario)
                        && result.workload().equals(workload))
                .toList();
    }

    private Optional<RateLimitDriver.Result> point(
            int repetition, BenchDatabase database, String scenario, String workload) {
        return points.stream()
                .filter(point -> point.repetition() == repetition)
                .map(Point::result)
                .filter(result -> result.database() == database
                        && result.scenario().equals(scenario)
                        && result.workload().equals(workload))
                .findFirst();
    }

    /** The lowest and highest ratio of decisions per second, each within one repetition. */
    private Optional<double[]> ratios(BenchDatabase database, String scenario, String workload, String baseline) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            Optional<RateLimitDriver.Result> a = point(repetition, database, scenario, workload);
            Optional<RateLimitDriver.Result> b = point(repetition, database, scenario, baseline);
            if (a.isPresent() && b.isPresent() && b.get().decisionsPerSecond() > 0) {
                double ratio = a.get().decisionsPerSecond() / b.get().decisionsPerSecond();
                low = Math.min(low, ratio);
                high = Math.max(high, ratio);
            }
        }
        return high == 0 ? Optional.empty() : Optional.of(new double[] {low, high});
    }

    private static String rangeText(double[] range) {
        return ProductionSection.times(range[0]) + "–" + ProductionSection.times(range[1]);
    }

    private static String range(
            List<RateLimitDriver.Result> all, ToDoubleFunction<RateLimitDriver.Result> value, String format) {
        double low = all.stream().mapToDouble(value).min().orElse(0);
        double high = all.stream().mapToDouble(value).max().orElse(0);
        return String.format(Locale.ROOT, format, low) + "–" + String.format(Locale.ROOT, format, high);
    }

    private static String cells(
            List<RateLimitDriver.Result> all, ToDoubleFunction<RateLimitDriver.Result> value, String format) {
        return all.stream()
                .map(result -> String.format(Locale.ROOT, format, value.applyAsDouble(result)))
                .collect(Collectors.joining(", "));
    }
}
