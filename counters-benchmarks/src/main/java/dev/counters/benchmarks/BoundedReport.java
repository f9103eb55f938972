package dev.counters.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * Writes docs/benchmarks-bounded.md: the {@code bounded} strategy selling a stock from one and four service
 * instances, beside the guarded update a shop would write and Redis's bounded increment, on the production-like
 * MariaDB and PostgreSQL, then a sell-out of 1,000 units of each. As {@link RedisReport}: a warm-up point thrown
 * away, then the plan twice, the second time in reverse order; each ratio is taken within one repetition.
 */
final class BoundedReport {

    static final List<BenchDatabase> DATABASES = List.of(BenchDatabase.MARIADB_DURABLE, BenchDatabase.POSTGRES_DURABLE);
    static final int CALLERS = 64;
    static final int REPETITIONS = 2;
    static final int SALES = 3;
    static final long SALE_STOCK = 1_000;
    /** bounded ≥ this × the guarded update, from one and from four instances. */
    private static final double TARGET = 20;

    private record Point(int repetition, LoadResult result) {}

    private record Sale(int repetition, SellOut.Result result) {}

    private final Path docs;
    private final boolean quick;
    private final List<Point> points = new ArrayList<>();
    private final List<Sale> sales = new ArrayList<>();

    BoundedReport(Path docs, boolean quick) {
        this.docs = docs;
        this.quick = quick;
    }

    boolean allExact() {
        return points.stream().allMatch(point -> point.result().correct())
                && sales.stream().allMatch(sale -> sale.result().exact());
    }

    void run() throws Exception {
        if (!RedisWorkload.available()) {
            throw new IllegalStateException("The bounded report needs a redis-server on the PATH for its anchor"
                    + " (Debian: apt-get install redis-server)");
        }
        long started = System.nanoTime();
        Duration warmup = Duration.ofMillis(quick ? 300 : 3_000);
        Duration duration = Duration.ofMillis(quick ? 500 : 5_000);
        List<Workload.Kind> kinds = Workloads.bounded();
        // A JVM's first point runs while the JIT is still compiling: run one and throw it away.
        LoadDriver.run(DATABASES.getFirst(), kinds.getFirst(), CALLERS, 1, warmup, duration);
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            for (Workload.Kind kind : inOrder(kinds, repetition)) {
                for (BenchDatabase database : databases(kind.name())) {
                    add(repetition, Report.logged(LoadDriver.run(database, kind, CALLERS, 1, warmup, duration)));
                }
            }
        }
        for (int repetition = 0; repetition < SALES; repetition++) {
            for (SellOut.Kind kind : inOrder(Workloads.sellOuts(), repetition)) {
                for (BenchDatabase database : databases(kind.name())) {
                    SellOut.Result sale = SellOut.run(database, kind, SALE_STOCK, CALLERS);
                    System.out.println(sale.line());
                    add(repetition, sale);
                }
            }
        }
        Files.writeString(
                docs.resolve("benchmarks-bounded.md"), markdown(Duration.ofNanos(System.nanoTime() - started)));
    }

    void add(int repetition, LoadResult result) {
        points.add(new Point(repetition, result));
    }

    void add(int repetition, SellOut.Result result) {
        sales.add(new Sale(repetition, result));
    }

    /** Every second repetition in reverse order. */
    private static <T> List<T> inOrder(List<T> kinds, int repetition) {
        List<T> order = new ArrayList<>(kinds);
        if (repetition % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }

    /** Redis does not depend on the database: it runs once, beside the first. */
    private static boolean redis(String workload) {
        return workload.startsWith("redis-");
    }

    private static List<BenchDatabase> databases(String workload) {
        return redis(workload) ? List.of(DATABASES.getFirst()) : DATABASES;
    }

    // ---- the document ----

    String markdown(Duration took) {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks: bounded counters\n\n");
        md.append(Report.generated("bounded", took, quick));
        for (BenchDatabase database : DATABASES) {
            md.append("- **").append(database.description).append(".**\n");
        }
        md.append("- **Redis:** one local `redis-server` per point, `appendfsync always`, with the same delay per"
                + " sync as MariaDB; it does not depend on the database, so it runs once per repetition.\n");
        md.append("- ")
                .append(CALLERS)
                .append(" callers (shared among the instances), one hot counter: a stock of ")
                .append(String.format(Locale.ROOT, "%,d", Workloads.LOAD_STOCK))
                .append(" units, fresh for each point, which no point sells out, so that every change is a sale. ")
                .append(quick ? "Short points" : "3 s of warm-up, then 5 s measured per point")
                .append("; a first point thrown away, then the plan twice, the second time in reverse order.\n");
        md.append("- The machine has 2 cores, shared by the client (this JVM), the database and Redis. Read the"
                + " ratios, not the absolute numbers.\n\n");
        md.append("| workload | what |\n|---|---|\n");
        for (SellOut.Kind kind : Workloads.stocks()) {
            md.append("| `")
                    .append(kind.name())
                    .append("` | ")
                    .append(kind.description())
                    .append(" |\n");
        }
        md.append('\n');
        targets(md);
        throughput(md);
        sellOut(md);
        return Report.withContents(md.toString());
    }

    private void targets(StringBuilder md) {
        md.append("## Targets\n\n| target | database | measured (range) | met |\n|---|---|---|---|\n");
        for (String[] pair :
                List.of(new String[] {"bounded", "guarded-update"}, new String[] {"bounded-4", "guarded-update-4"})) {
            for (BenchDatabase database : DATABASES) {
                ratios(database, pair[0], pair[1])
                        .ifPresent(range -> target(
                                md,
                                pair[0] + " ≥ " + ProductionSection.times(TARGET) + " " + pair[1] + ", " + CALLERS
                                        + " threads",
                                database,
                                range,
                                range[0] >= TARGET ? "yes" : "**no**"));
            }
        }
        for (SellOut.Kind kind : Workloads.sellOuts()) {
            for (BenchDatabase database : databases(kind.name())) {
                List<SellOut.Result> all = sales(database, kind.name());
                if (!all.isEmpty()) {
                    long exact = all.stream().filter(SellOut.Result::exact).count();
                    md.append(String.format(
                            Locale.ROOT,
                            "| sell-out of %,d exact: %s | %s | %d of %d exact | %s |%n",
                            SALE_STOCK,
                            kind.name(),
                            label(database, kind.name()),
                            exact,
                            all.size(),
                            exact == all.size() ? "yes" : "**no**"));
                }
            }
        }
        for (BenchDatabase database : DATABASES) {
            // How many times faster: the guarded update's time over bounded's, within one repetition.
            ratio(
                            SALES,
                            repetition ->
                                    sale(repetition, database, "guarded-update").map(SellOut.Result::seconds),
                            repetition -> sale(repetition, database, "bounded").map(SellOut.Result::seconds))
                    .ifPresent(range -> target(
                            md,
                            "bounded sells out faster than guarded-update",
                            database,
                            range,
                            range[0] > 1 ? "yes" : "**no**"));
        }
        // Reported, not targets: what the allowances bring four instances, and the durable anchor.
        for (String[] pair : List.of(
                new String[] {"bounded-pool-4", "what escrow brings four instances, against one shared pool row"},
                new String[] {"redis-bounded-always", "the durable anchor"})) {
            for (BenchDatabase database : DATABASES) {
                ratios(database, "bounded-4", pair[0])
                        .ifPresent(range -> target(
                                md,
                                "bounded-4 ÷ " + pair[0] + " (" + pair[1] + ": reported, not a target)",
                                database,
                                range,
                                "—"));
            }
        }
        md.append('\n');
    }

    private static void target(StringBuilder md, String label, BenchDatabase database, double[] range, String met) {
        md.append(String.format(
                Locale.ROOT,
                "| %s | %s | %s–%s | %s |%n",
                label,
                database.vendor().name(),
                ProductionSection.times(range[0]),
                ProductionSection.times(range[1]),
                met));
    }

    private void throughput(StringBuilder md) {
        md.append("## Throughput\n\n| workload | database | changes/s | ÷ guarded update | p50 ms | p99 ms | statements"
                + " per change | failed (per s) | exact |\n|---|---|---|---|---|---|---|---|---|\n");
        for (Workload.Kind kind : Workloads.bounded()) {
            for (BenchDatabase database : databases(kind.name())) {
                List<LoadResult> all = results(database, kind.name());
                if (all.isEmpty()) {
                    continue;
                }
                String baseline = kind.name().endsWith("-4") ? "guarded-update-4" : "guarded-update";
                String vsGuarded = redis(kind.name())
                        ? "—"
                        : ratios(database, kind.name(), baseline)
                                .map(range ->
                                        ProductionSection.times(range[0]) + "–" + ProductionSection.times(range[1]))
                                .orElse("");
                md.append("| `")
                        .append(kind.name())
                        .append("` | ")
                        .append(label(database, kind.name()))
                        .append(" | ")
                        .append(cells(all, LoadResult::operationsPerSecond, "%,.0f"))
                        .append(" | ")
                        .append(vsGuarded)
                        .append(" | ")
                        .append(cells(all, result -> result.micros(50) / 1_000, "%.2f"))
                        .append(" | ")
                        .append(cells(all, result -> result.micros(99) / 1_000, "%.2f"))
                        .append(" | ")
                        .append(cells(all, LoadResult::statementsPerOperation, "%.2f"))
                        .append(" | ")
                        .append(cells(all, result -> result.failures() / result.seconds(), "%,.0f"))
                        .append(" | ")
                        .append(all.stream().allMatch(LoadResult::correct) ? "yes" : "**NO**")
                        .append(" |\n");
            }
        }
        md.append("\nEach cell lists the repetitions. \"÷ guarded update\": the lowest and highest ratio to the guarded"
                + " update from as many instances, each within one repetition. Statements are those sent to the"
                + " database in the measured window, commits included, per change measured (Redis commands are not"
                + " counted). \"Failed\": changes that threw or were refused; they are not acknowledged. \"Exact\": the"
                + " units sold as stored (the stock minus the value a new reader sees after close) equal the"
                + " acknowledged changes.\n\n");
    }

    private void sellOut(StringBuilder md) {
        md.append("## Sell-out\n\n");
        md.append(String.format(
                Locale.ROOT,
                "A stock of %,d, %d callers each taking one unit after another until it is refused; an observer reads"
                        + " the value every millisecond. Repeated %d times (every second time in reverse order).%n%n",
                SALE_STOCK,
                CALLERS,
                SALES));
        md.append("| workload | database | time to sell out, median (range) ms | sold | value left | lowest value seen"
                + " | left in allowances | errors | exact |\n|---|---|---|---|---|---|---|---|---|\n");
        for (SellOut.Kind kind : Workloads.sellOuts()) {
            for (BenchDatabase database : databases(kind.name())) {
                List<SellOut.Result> all = sales(database, kind.name());
                if (all.isEmpty()) {
                    continue;
                }
                double[] millis = all.stream()
                        .mapToDouble(result -> result.seconds() * 1_000)
                        .sorted()
                        .toArray();
                md.append(String.format(
                        Locale.ROOT,
                        "| `%s` | %s | %,.0f (%,.0f–%,.0f) | %s | %s | %s | %s | %s | %s |%n",
                        kind.name(),
                        label(database, kind.name()),
                        millis[millis.length / 2],
                        millis[0],
                        millis[millis.length - 1],
                        joined(all, SellOut.Result::sold),
                        joined(all, SellOut.Result::value),
                        joined(all, SellOut.Result::lowest),
                        joined(all, SellOut.Result::heldApart),
                        joined(all, SellOut.Result::errors),
                        all.stream().allMatch(SellOut.Result::exact) ? "yes" : "**NO**"));
            }
        }
        md.append("\nThe time runs from the start to the last caller's refusal. \"Exact\": every unit sold once and"
                + " no more (sold = stock, value left 0), the value never seen below 0, no room left in a node's"
                + " allowance after close (the bounded counter's `state()`), and no error.\n");
    }

    // ---- lookups ----

    private static String label(BenchDatabase database, String workload) {
        return redis(workload) ? "Redis" : database.vendor().name();
    }

    private List<LoadResult> results(BenchDatabase database, String workload) {
        return points.stream()
                .map(Point::result)
                .filter(result -> matches(result.database(), result.workload(), database, workload))
                .toList();
    }

    private Optional<LoadResult> point(int repetition, BenchDatabase database, String workload) {
        return points.stream()
                .filter(point -> point.repetition() == repetition)
                .map(Point::result)
                .filter(result -> matches(result.database(), result.workload(), database, workload))
                .findFirst();
    }

    private List<SellOut.Result> sales(BenchDatabase database, String workload) {
        return sales.stream()
                .map(Sale::result)
                .filter(result -> matches(result.database(), result.workload(), database, workload))
                .toList();
    }

    private Optional<SellOut.Result> sale(int repetition, BenchDatabase database, String workload) {
        return sales.stream()
                .filter(sale -> sale.repetition() == repetition)
                .map(Sale::result)
                .filter(result -> matches(result.database(), result.workload(), database, workload))
                .findFirst();
    }

    /** Redis's results, run beside the first database, stand for every database. */
    private static boolean matches(
            BenchDatabase measured, String measuredWorkload, BenchDatabase database, String workload) {
        return measuredWorkload.equals(workload) && (measured == database || redis(workload));
    }

    /** The lowest and highest ratio of a workload's throughput to a baseline's, each within one repetition. */
    private Optional<double[]> ratios(BenchDatabase database, String workload, String baseline) {
        return ratio(
                REPETITIONS,
                repetition -> point(repetition, database, workload).map(LoadResult::operationsPerSecond),
                repetition -> point(repetition, database, baseline).map(LoadResult::operationsPerSecond));
    }

    /** The lowest and highest of {@code over ÷ under} over the repetitions where both were measured. */
    private static Optional<double[]> ratio(
            int repetitions, IntFunction<Optional<Double>> over, IntFunction<Optional<Double>> under) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (int repetition = 0; repetition < repetitions; repetition++) {
            Optional<Double> a = over.apply(repetition);
            Optional<Double> b = under.apply(repetition);
            if (a.isPresent() && b.isPresent() && b.get() > 0) {
                low = Math.min(low, a.get() / b.get());
                high = Math.max(high, a.get() / b.get());
            }
        }
        return high == 0 ? Optional.empty() : Optional.of(new double[] {low, high});
    }

    private static String cells(List<LoadResult> all, ToDoubleFunction<LoadResult> value, String format) {
        return all.stream()
                .map(result -> String.format(Locale.ROOT, format, value.applyAsDouble(result)))
                .collect(Collectors.joining(", "));
    }

    private static String joined(List<SellOut.Result> all, ToLongFunction<SellOut.Result> value) {
        return all.stream()
                .map(result -> String.format(Locale.ROOT, "%,d", value.applyAsLong(result)))
                .collect(Collectors.joining(", "));
    }
}
