package dev.counters.benchmarks;

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
 * Writes docs/benchmarks-jpa.md: entity inserts through Spring Data JPA with {@code @CountersSequence} beside
 * Hibernate's own generators, the generators' ids alone, and likes toggled on a hot post by a
 * {@code MembershipCounter} beside the hand-written membership row and {@code UPDATE}, on the production-like MariaDB
 * and PostgreSQL, in one run. As {@link RateLimitReport}: a first point on each database thrown away, then the plan
 * twice, the second time in reverse order; each ratio within one repetition.
 */
final class JpaReport {

    static final List<BenchDatabase> DATABASES = List.of(BenchDatabase.MARIADB_DURABLE, BenchDatabase.POSTGRES_DURABLE);
    static final int THREADS = 64;
    static final int REPETITIONS = 2;
    static final String OURS = "counters";
    /** Inserts: ours ≥ this × the best of Hibernate's generators. Ids alone: ≥ these × table and pooled sequence. */
    static final double INSERT_TARGET = 1;

    static final double TABLE_TARGET = 10;
    static final double SEQUENCE_TARGET = 2;
    static final String TOGGLE_BASELINE = "insert-update";
    static final double TOGGLE_TARGET = 10;

    private record Point(int repetition, JpaDriver.Result result) {}

    private final Path docs;
    private final boolean quick;
    private final List<BenchDatabase> databases;
    private final List<Point> points = new ArrayList<>();
    private String load = "";

    JpaReport(Path docs, boolean quick) {
        this(docs, quick, DATABASES);
    }

    JpaReport(Path docs, boolean quick, List<BenchDatabase> databases) {
        this.docs = docs;
        this.quick = quick;
        this.databases = databases;
    }

    /** Whether every run ended exact: every acknowledged insert stored, ids unique, counts equal to their rows. */
    boolean allExact() {
        return points.stream().map(Point::result).allMatch(JpaDriver.Result::exact);
    }

    void run() throws Exception {
        long started = System.nanoTime();
        String before = RateLimitReport.loadAverage();
        measure();
        load = before + " at the start, " + RateLimitReport.loadAverage() + " at the end";
        Files.writeString(docs.resolve("benchmarks-jpa.md"), markdown(Duration.ofNanos(System.nanoTime() - started)));
    }

    void measure() throws Exception {
        Duration warmup = Duration.ofMillis(quick ? 200 : 2_000);
        Duration duration = Duration.ofMillis(quick ? 400 : 4_000);
        // A JVM's first point runs while the JIT is still compiling, and a database's first on a cold server: run one
        // on each database and throw it away.
        for (BenchDatabase database : databases) {
            JpaDriver.inserts(database, IdGenerator.all().getFirst(), THREADS, warmup, duration);
        }
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            for (IdGenerator generator : inOrder(IdGenerator.all(), repetition)) {
                for (BenchDatabase database : databases) {
                    add(repetition, logged(JpaDriver.inserts(database, generator, THREADS, warmup, duration)));
                }
            }
            for (IdGenerator generator : inOrder(IdGenerator.apart(), repetition)) {
                for (BenchDatabase database : databases) {
                    add(repetition, logged(JpaDriver.ids(database, generator, THREADS, warmup, duration)));
                }
            }
            for (ToggleWorkload.Kind kind : inOrder(ToggleWorkload.all(), repetition)) {
                for (BenchDatabase database : databases) {
                    add(repetition, logged(JpaDriver.toggles(database, kind, THREADS, warmup, duration)));
                }
            }
        }
    }

    void add(int repetition, JpaDriver.Result result) {
        points.add(new Point(repetition, result));
    }

    private static JpaDriver.Result logged(JpaDriver.Result result) {
        System.out.println(result.line());
        return result;
    }

    private static <T> List<T> inOrder(List<T> all, int repetition) {
        List<T> order = new ArrayList<>(all);
        if (repetition % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }

    // ---- the document ----

    String markdown(Duration took) {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmarks: JPA entity ids and membership counters\n\n");
        md.append(Report.generated("jpa", took, quick));
        for (BenchDatabase database : databases) {
            md.append("- **").append(database.description).append(".**\n");
        }
        md.append("- Every contender on the same servers, each point on tables of its own (a Spring application of its"
                        + " own for the JPA points), with a pool of ")
                .append(THREADS + 8)
                .append(" connections for ")
                .append(THREADS)
                .append(" threads. ")
                .append(quick ? "Short points" : "2 s of warm-up, then 4 s measured")
                .append(
                        "; a first point on each database thrown away, then the plan twice, the second time in reverse order.\n");
        md.append("- The machine has ")
                .append(Runtime.getRuntime().availableProcessors())
                .append(" cores, shared by the client (this JVM) and the database")
                .append(load.isEmpty() ? "" : "; its load average (1 min) was " + load)
                .append(". Read the ratios, not the absolute numbers.\n\n");
        targets(md);
        inserts(md);
        ids(md);
        toggles(md);
        return Report.withContents(md.toString());
    }

    private void targets(StringBuilder md) {
        md.append("## Targets\n\n| target | database | measured (range) | met |\n|---|---|---|---|\n");
        for (BenchDatabase database : databases) {
            target(
                    md,
                    String.format(
                            Locale.ROOT,
                            "%s inserts/s ≥ %s the best Hibernate generator, %d threads",
                            OURS,
                            ProductionSection.times(INSERT_TARGET),
                            THREADS),
                    database,
                    ratios(database, JpaDriver.INSERTS, OURS, hibernate()),
                    INSERT_TARGET);
            target(
                    md,
                    idsTarget("table", TABLE_TARGET),
                    database,
                    ratios(database, JpaDriver.IDS, OURS, List.of("table")),
                    TABLE_TARGET);
            target(
                    md,
                    idsTarget("sequence-pooled", SEQUENCE_TARGET),
                    database,
                    ratios(database, JpaDriver.IDS, OURS, List.of("sequence-pooled")),
                    SEQUENCE_TARGET);
            for (ToggleWorkload.Kind kind : ToggleWorkload.all()) {
                if (!kind.name().equals(TOGGLE_BASELINE)) {
                    target(
                            md,
                            String.format(
                                    Locale.ROOT,
                                    "%s toggles/s ≥ %s %s, one hot post, %d threads",
                                    kind.name(),
                                    ProductionSection.times(TOGGLE_TARGET),
                                    TOGGLE_BASELINE,
                                    THREADS),
                            database,
                            ratios(database, JpaDriver.TOGGLES, kind.name(), List.of(TOGGLE_BASELINE)),
                            TOGGLE_TARGET);
                }
            }
            List<JpaDriver.Result> all = points.stream()
                    .map(Point::result)
                    .filter(result -> result.database() == database)
                    .toList();
            long exact = all.stream().filter(JpaDriver.Result::exact).count();
            md.append(String.format(
                    Locale.ROOT,
                    "| every run exact (inserts stored, ids unique, like count = member rows) | %s | %d of %d | %s |%n",
                    database.vendor().name(),
                    exact,
                    all.size(),
                    exact == all.size() ? "yes" : "**no**"));
        }
        md.append('\n');
    }

    private static String idsTarget(String baseline, double times) {
        return String.format(
                Locale.ROOT,
                "%s ids alone ≥ %s %s, %d threads",
                OURS,
                ProductionSection.times(times),
                baseline,
                THREADS);
    }

    private static void target(
            StringBuilder md, String label, BenchDatabase database, Optional<double[]> range, double wanted) {
        md.append(String.format(
                Locale.ROOT,
                "| %s | %s | %s | %s |%n",
                label,
                database.vendor().name(),
                range.map(JpaReport::rangeText).orElse("not measured"),
                range.isEmpty() ? "—" : range.get()[0] >= wanted ? "yes" : "**no**"));
    }

    private static List<String> hibernate() {
        return IdGenerator.all().stream()
                .map(IdGenerator::name)
                .filter(name -> !name.equals(OURS))
                .toList();
    }

    private void inserts(StringBuilder md) {
        md.append("## Inserts through Spring Data JPA\n\n");
        md.append(String.format(
                Locale.ROOT,
                "%d threads, each inserting %d orders (a small entity: id, customer, amount) per transaction through"
                        + " the Spring Data repository's `saveAll` in a `TransactionTemplate`, with"
                        + " `hibernate.jdbc.batch_size=%d` and `hibernate.order_inserts=true`. One entity class per"
                        + " generator, mapped as its documentation shows; Spring Data JPA %s on Hibernate %s, wired as"
                        + " Boot's JPA auto-configuration wires it (`LocalContainerEntityManagerFactoryBean`,"
                        + " `JpaTransactionManager`, `@EnableJpaRepositories`), without Boot.%n%n",
                THREADS,
                JpaOrders.PER_TRANSACTION,
                JpaOrders.PER_TRANSACTION,
                version(org.springframework.data.jpa.repository.JpaRepository.class),
                org.hibernate.Version.getVersionString()));
        md.append("| generator | what |\n|---|---|\n");
        for (IdGenerator generator : IdGenerator.all()) {
            md.append("| `")
                    .append(generator.name())
                    .append("` | ")
                    .append(generator.description())
                    .append(" |\n");
        }
        md.append("\n| generator | database | inserts/s | ÷ best Hibernate | time getting ids | p50 ms | p99 ms |"
                + " statements per insert | errors | check |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (IdGenerator generator : IdGenerator.all()) {
            for (BenchDatabase database : databases) {
                List<JpaDriver.Result> all = results(database, JpaDriver.INSERTS, generator.name());
                if (all.isEmpty()) {
                    continue;
                }
                md.append(row(
                        generator.name(),
                        database,
                        all,
                        generator.name().equals(OURS)
                                ? ratios(database, JpaDriver.INSERTS, OURS, hibernate())
                                        .map(JpaReport::rangeText)
                                        .orElse("")
                                : "—",
                        generator.fromInsert()
                                ? "in the `INSERT`"
                                : cells(all, result -> 100 * result.idShare(), "%.1f %%")));
            }
        }
        md.append("\nEach cell lists the repetitions. \"÷ best Hibernate\": within one repetition, over the fastest of"
                + " Hibernate's three generators on that database; the lowest and highest. \"Time getting ids\": the"
                + " share of the transactions' time spent in `saveAll`, where Hibernate's `persist` asks the generator"
                + " for each id (the inserts themselves are sent at the commit's flush, in JDBC batches); with"
                + " `IDENTITY` the id is the `INSERT`'s, sent at `persist` one at a time, so the share has no meaning."
                + " Latencies are of a transaction of " + JpaOrders.PER_TRANSACTION + " inserts. Statements are those"
                + " sent in the measured window, commits and the generators' own included, per insert (a JDBC batch"
                + " counts once). \"Check\": every acknowledged insert is stored, counted after the run.\n\n");
    }

    private void ids(StringBuilder md) {
        md.append("## Ids alone\n\n");
        md.append(String.format(
                Locale.ROOT,
                "%d threads, each drawing ids from the generator Hibernate built for the entity (what `persist` calls),"
                        + " on a Hibernate session of its own, outside any transaction of the caller's. Each generator"
                        + " with its documented defaults; `IDENTITY` has no ids apart from its `INSERT`.%n%n",
                THREADS));
        md.append("| generator | database | ids/s | counters ÷ this | p50 µs | p99 µs | statements per id | errors |"
                + " check |\n|---|---|---|---|---|---|---|---|---|\n");
        for (IdGenerator generator : IdGenerator.apart()) {
            for (BenchDatabase database : databases) {
                List<JpaDriver.Result> all = results(database, JpaDriver.IDS, generator.name());
                if (all.isEmpty()) {
                    continue;
                }
                md.append(String.format(
                        Locale.ROOT,
                        "| `%s` | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        generator.name(),
                        database.vendor().name(),
                        cells(all, JpaDriver.Result::perSecond, "%,.0f"),
                        generator.name().equals(OURS)
                                ? "—"
                                : ratios(database, JpaDriver.IDS, OURS, List.of(generator.name()))
                                        .map(JpaReport::rangeText)
                                        .orElse(""),
                        cells(all, result -> result.millis(50) * 1_000, "%,.1f"),
                        cells(all, result -> result.millis(99) * 1_000, "%,.1f"),
                        cells(all, JpaDriver.Result::statementsPerOperation, "%.3f"),
                        cells(all, result -> result.errors(), "%,.0f"),
                        checks(all)));
            }
        }
        md.append("\nEach cell lists the repetitions. \"Counters ÷ this\": within one repetition; the lowest and"
                + " highest. \"Check\": no id drawn twice, and each thread's ids increasing.\n\n");
    }

    private void toggles(StringBuilder md) {
        md.append("## Likes toggled on a hot post\n\n");
        md.append(String.format(
                Locale.ROOT,
                "One post, %d threads; each takes one of %,d users at random and likes or unlikes as the callers last"
                        + " saw that user (two threads on one user race, as two browser tabs do). Each toggle is"
                        + " durable when it returns.%n%n",
                THREADS,
                JpaDriver.USERS));
        md.append("| workload | what |\n|---|---|\n");
        for (ToggleWorkload.Kind kind : ToggleWorkload.all()) {
            md.append("| `")
                    .append(kind.name())
                    .append("` | ")
                    .append(kind.description())
                    .append(" |\n");
        }
        md.append("\n| workload | database | toggles/s | ÷ " + TOGGLE_BASELINE + " | p50 ms | p99 ms |"
                + " statements per toggle | errors | check |\n|---|---|---|---|---|---|---|---|---|\n");
        for (ToggleWorkload.Kind kind : ToggleWorkload.all()) {
            for (BenchDatabase database : databases) {
                List<JpaDriver.Result> all = results(database, JpaDriver.TOGGLES, kind.name());
                if (all.isEmpty()) {
                    continue;
                }
                md.append(row(
                        kind.name(),
                        database,
                        all,
                        kind.name().equals(TOGGLE_BASELINE)
                                ? "—"
                                : ratios(database, JpaDriver.TOGGLES, kind.name(), List.of(TOGGLE_BASELINE))
                                        .map(JpaReport::rangeText)
                                        .orElse(""),
                        null));
            }
        }
        md.append("\nEach cell lists the repetitions. \"÷ " + TOGGLE_BASELINE + "\": within one repetition; the lowest"
                + " and highest. Statements are those sent in the measured window, commits included, per toggle."
                + " \"Errors\": toggles that threw. \"Check\": after the run, the stored like count against the"
                + " member rows (this library: read by a new service, the count and its members paged through).\n");
    }

    /** A row of the inserts or toggles table: {@code share} is the inserts' time getting ids, null for toggles. */
    private static String row(
            String name, BenchDatabase database, List<JpaDriver.Result> all, String ratio, String share) {
        return String.format(
                Locale.ROOT,
                "| `%s` | %s | %s | %s |%s %s | %s | %s | %s | %s |%n",
                name,
                database.vendor().name(),
                cells(all, JpaDriver.Result::perSecond, "%,.0f"),
                ratio,
                share == null ? "" : " " + share + " |",
                cells(all, result -> result.millis(50), "%.2f"),
                cells(all, result -> result.millis(99), "%.2f"),
                cells(all, JpaDriver.Result::statementsPerOperation, "%.2f"),
                cells(all, result -> result.errors(), "%,.0f"),
                checks(all));
    }

    private static String checks(List<JpaDriver.Result> all) {
        return all.stream()
                .map(result -> (result.exact() ? "" : "**NOT EXACT** ") + result.check())
                .collect(Collectors.joining("; "));
    }

    // ---- lookups ----

    private static String version(Class<?> type) {
        String version = type.getPackage().getImplementationVersion();
        return version == null ? "" : version;
    }

    private List<JpaDriver.Result> results(BenchDatabase database, String scenario, String workload) {
        return points.stream()
                .map(Point::result)
                .filter(result -> result.database() == database
                        && result.scenario().equals(scenario)
                        && result.workload().equals(workload))
                .toList();
    }

    private Optional<JpaDriver.Result> point(int repetition, BenchDatabase database, String scenario, String workload) {
        return points.stream()
                .filter(point -> point.repetition() == repetition)
                .map(Point::result)
                .filter(result -> result.database() == database
                        && result.scenario().equals(scenario)
                        && result.workload().equals(workload))
                .findFirst();
    }

    /**
     * The lowest and highest ratio of {@code workload}'s throughput over the best of {@code baselines}, each within
     * one repetition.
     */
    private Optional<double[]> ratios(
            BenchDatabase database, String scenario, String workload, List<String> baselines) {
        double low = Double.MAX_VALUE;
        double high = 0;
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            int at = repetition;
            Optional<JpaDriver.Result> ours = point(repetition, database, scenario, workload);
            double best = baselines.stream()
                    .map(baseline -> point(at, database, scenario, baseline))
                    .flatMap(Optional::stream)
                    .mapToDouble(JpaDriver.Result::perSecond)
                    .max()
                    .orElse(0);
            if (ours.isPresent() && best > 0) {
                double ratio = ours.get().perSecond() / best;
                low = Math.min(low, ratio);
                high = Math.max(high, ratio);
            }
        }
        return high == 0 ? Optional.empty() : Optional.of(new double[] {low, high});
    }

    private static String rangeText(double[] range) {
        return ProductionSection.times(range[0]) + "–" + ProductionSection.times(range[1]);
    }

    private static String cells(List<JpaDriver.Result> all, ToDoubleFunction<JpaDriver.Result> value, String format) {
        return all.stream()
                .map(result -> String.format(Locale.ROOT, format, value.applyAsDouble(result)))
                .collect(Collectors.joining(", "));
    }
}
