package dev.counters.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The library's own cost per call: each database strategy at one thread against the statement(s) it sends, written
 * by hand in plain JDBC on the same tables ({@link RawJdbcWorkload}), on the relaxed servers, where a commit costs
 * little and the client's work shows. Two repetitions, the second in reverse order; ratios are taken within one.
 */
final class OverheadSection {

    /** A strategy and the hand-written JDBC it is measured against. */
    private record Pair(String strategy, String jdbc) {}

    private static final List<Pair> PAIRS = List.of(
            new Pair("atomic", "jdbc-update"),
            new Pair("node", "jdbc-update"),
            new Pair("sharded", "jdbc-update-sharded"),
            new Pair("optimistic", "jdbc-cas"),
            new Pair("delta-log", "jdbc-insert"));
    private static final double TARGET = 0.9;
    private static final int REPETITIONS = 2;

    private record Point(int repetition, LoadResult result) {}

    private final boolean quick;
    private final List<Point> points = new ArrayList<>();

    OverheadSection(boolean quick) {
        this.quick = quick;
    }

    boolean allExact() {
        return points.stream().allMatch(point -> point.result().correct());
    }

    void run(Report.Attempts attempts) {
        Duration warmup = Duration.ofMillis(quick ? 200 : 3_000);
        // So that one stall of the host does not decide a point: at 3 s a baseline's repetitions differed by 32 %.
        Duration duration = Duration.ofMillis(quick ? 300 : 6_000);
        List<String> workloads = PAIRS.stream()
                .flatMap(pair -> java.util.stream.Stream.of(pair.jdbc(), pair.strategy()))
                .distinct()
                .toList();
        for (BenchDatabase database : BenchDatabase.relaxed()) {
            Report.log("overhead on " + database);
            attempts.attempt(
                    "warm-up on " + database,
                    () -> Report.logged(
                            LoadDriver.run(database, Workloads.counting("jdbc-update"), 1, 1, warmup, duration)));
            for (int repetition = 0; repetition < REPETITIONS; repetition++) {
                List<String> order = new ArrayList<>(workloads);
                if (repetition % 2 == 1) {
                    Collections.reverse(order);
                }
                int round = repetition;
                for (String workload : order) {
                    attempts.attempt(
                            workload + " on " + database,
                            () -> points.add(new Point(
                                    round,
                                    Report.logged(LoadDriver.run(
                                            database, Workloads.counting(workload), 1, 1, warmup, duration)))));
                }
            }
        }
    }

    void write(StringBuilder md) {
        md.append("## The library's own cost\n\nOne thread, one counter, relaxed servers (a commit costs little, so"
                        + " the client's work shows): each strategy against the statement(s) it sends written by hand in"
                        + " JDBC on the same tables. Target: ≥ ")
                .append(TARGET)
                .append("× the hand-written JDBC. ")
                .append(quick ? "0.2 s warm-up, 0.3 s" : "3 s warm-up, 6 s")
                .append(" measured per point, ")
                .append(REPETITIONS)
                .append(" repetitions; µs CPU is the benchmark JVM's per increment (on H2 it"
                        + " includes the database).\n\n");
        if (points.isEmpty()) {
            md.append("Not run.\n\n");
            return;
        }
        md.append("| database | strategy | increments/s | µs CPU | JDBC by hand | increments/s | µs CPU | ratio"
                        + " (range) | ≥ ")
                .append(TARGET)
                .append("× |\n|---|---|---|---|---|---|---|---|---|\n");
        for (BenchDatabase database : BenchDatabase.relaxed()) {
            for (Pair pair : PAIRS) {
                List<LoadResult> strategy = results(database, pair.strategy());
                List<LoadResult> jdbc = results(database, pair.jdbc());
                Optional<double[]> range = range(database, pair);
                if (strategy.isEmpty() || jdbc.isEmpty() || range.isEmpty()) {
                    continue;
                }
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %s | %.1f | %s | %s | %.1f | %s–%s | %s |%n",
                        database.name(),
                        pair.strategy(),
                        opsRange(strategy),
                        cpu(strategy),
                        pair.jdbc(),
                        opsRange(jdbc),
                        cpu(jdbc),
                        ProductionSection.times(range.get()[0]),
                        ProductionSection.times(range.get()[1]),
                        range.get()[0] >= TARGET ? "yes" : "**no**"));
            }
        }
        md.append('\n');
    }

    private List<LoadResult> results(BenchDatabase database, String workload) {
        return points.stream()
                .map(Point::result)
                .filter(r -> r.database() == database && r.workload().equals(workload))
                .toList();
    }

    private Optional<double[]> range(BenchDatabase database, Pair pair) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            Optional<Double> strategy = ops(database, pair.strategy(), repetition);
            Optional<Double> jdbc = ops(database, pair.jdbc(), repetition);
            if (strategy.isPresent() && jdbc.isPresent() && jdbc.get() > 0) {
                low = Math.min(low, strategy.get() / jdbc.get());
                high = Math.max(high, strategy.get() / jdbc.get());
            }
        }
        return high == 0 ? Optional.empty() : Optional.of(new double[] {low, high});
    }

    private Optional<Double> ops(BenchDatabase database, String workload, int repetition) {
        return points.stream()
                .filter(p -> p.repetition() == repetition)
                .map(Point::result)
                .filter(r -> r.database() == database && r.workload().equals(workload))
                .findFirst()
                .map(LoadResult::operationsPerSecond);
    }

    private static String opsRange(List<LoadResult> results) {
        double[] ops = results.stream()
                .mapToDouble(LoadResult::operationsPerSecond)
                .sorted()
                .toArray();
        return String.format(Locale.ROOT, "%,.0f–%,.0f", ops[0], ops[ops.length - 1]);
    }

    private static double cpu(List<LoadResult> results) {
        return results.stream()
                .mapToDouble(LoadResult::cpuMicrosPerOperation)
                .average()
                .orElse(0);
    }
}
