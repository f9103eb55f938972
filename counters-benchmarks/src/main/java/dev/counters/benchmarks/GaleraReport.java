package dev.counters.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Writes docs/benchmarks-galera.md: every strategy run by three application instances, on one MariaDB 10.11 node and on
 * a three-node Galera cluster of the same binary, production-like on both (each commit synced, each sync delayed), side
 * by side. Each point gets a warm-up, then is measured; the plan runs twice, the second time in reverse order, and each
 * ratio is taken within one repetition.
 */
final class GaleraReport {

    private static final List<BenchDatabase> DATABASES =
            List.of(BenchDatabase.GALERA_ONE_NODE_DURABLE, BenchDatabase.GALERA_DURABLE);
    private static final int CALLERS = 64;
    private static final int REPETITIONS = 2;

    private record Point(int repetition, LoadResult result) {}

    private final Path docs;
    private final boolean quick;
    private final List<Point> points = new ArrayList<>();

    GaleraReport(Path docs, boolean quick) {
        this.docs = docs;
        this.quick = quick;
    }

    boolean allExact() {
        return points.stream().allMatch(point -> point.result().correct());
    }

    void run() throws Exception {
        long started = System.nanoTime();
        Duration warmup = Duration.ofMillis(quick ? 300 : 3_000);
        Duration duration = Duration.ofMillis(quick ? 500 : 5_000);
        List<Workload.Kind> kinds = Workloads.threeInstances();
        // A JVM's first point runs while the JIT is still compiling: run one and throw it away.
        LoadDriver.run(DATABASES.getFirst(), kinds.get(1), CALLERS, 1, warmup, duration);
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            List<Workload.Kind> order = new ArrayList<>(kinds);
            if (repetition % 2 == 1) {
                java.util.Collections.reverse(order);
            }
            for (Workload.Kind kind : order) {
                for (BenchDatabase database : DATABASES) {
                    points.add(new Point(
                            repetition, Report.logged(LoadDriver.run(database, kind, CALLERS, 1, warmup, duration))));
                }
            }
        }
        write(Duration.ofNanos(System.nanoTime() - started), kinds);
    }

    private LoadResult point(int repetition, BenchDatabase database, String workload) {
        return points.stream()
                .filter(p -> p.repetition() == repetition
                        && p.result().database() == database
                        && p.result().workload().equals(workload))
                .findFirst()
                .orElseThrow()
                .result();
    }

    private void write(Duration took, List<Workload.Kind> kinds) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks: a Galera cluster beside one node\n\n");
        md.append(Report.generated("galera", took, quick));
        md.append("- **One node:** ")
                .append(BenchDatabase.GALERA_ONE_NODE_DURABLE.description)
                .append(".\n");
        md.append("- **Three nodes:** ")
                .append(BenchDatabase.GALERA_DURABLE.description)
                .append(".\n");
        md.append("- Three application instances, each with its own pool and service (on the cluster each through a"
                        + " node of its own), ")
                .append(CALLERS)
                .append(" callers shared among them, one hot counter. ")
                .append(quick ? "Short points" : "3 s of warm-up, then 5 s measured per point")
                .append("; the plan ran twice, the second time in reverse order.\n");
        md.append(
                "- The machine has 2 cores, which the three nodes, the one node and the client share, and the nodes"
                        + " talk over loopback: a real cluster adds a network round trip to each commit and gives each node"
                        + " cores of its own. Read the ratios as what conflicts and certification cost, not as a forecast.\n\n");
        md.append("| workload | one node, increments/s | three nodes, increments/s | three ÷ one | failed on three"
                + " nodes (per s) | exact |\n|---|---|---|---|---|---|\n");
        for (Workload.Kind kind : kinds) {
            List<String> one = new ArrayList<>();
            List<String> three = new ArrayList<>();
            List<String> ratio = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            boolean exact = true;
            for (int repetition = 0; repetition < REPETITIONS; repetition++) {
                LoadResult single = point(repetition, BenchDatabase.GALERA_ONE_NODE_DURABLE, kind.name());
                LoadResult cluster = point(repetition, BenchDatabase.GALERA_DURABLE, kind.name());
                one.add(String.format(Locale.ROOT, "%,.0f", single.operationsPerSecond()));
                three.add(String.format(Locale.ROOT, "%,.0f", cluster.operationsPerSecond()));
                ratio.add(String.format(
                        Locale.ROOT, "%.2f×", cluster.operationsPerSecond() / single.operationsPerSecond()));
                failed.add(String.format(Locale.ROOT, "%,.0f", cluster.failures() / cluster.seconds()));
                exact &= single.correct() && cluster.correct();
            }
            md.append("| `")
                    .append(kind.name())
                    .append("` | ")
                    .append(String.join(", ", one))
                    .append(" | ")
                    .append(String.join(", ", three))
                    .append(" | ")
                    .append(String.join(", ", ratio))
                    .append(" | ")
                    .append(String.join(", ", failed))
                    .append(" | ")
                    .append(exact ? "yes" : "**NO**")
                    .append(" |\n");
        }
        md.append("\nEach cell lists the two repetitions. \"Failed\" counts increments refused after the library's"
                + " retries (for the plain update: every certification conflict, since nothing retries it); a failed"
                + " increment wrote nothing and is not counted as acknowledged. \"Exact\": the stored total equals the"
                + " acknowledged increments, on both setups.\n");
        Files.writeString(docs.resolve("benchmarks-galera.md"), md.toString());
    }
}
