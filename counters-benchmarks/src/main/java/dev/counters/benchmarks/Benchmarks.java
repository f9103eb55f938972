package dev.counters.benchmarks;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark tool. {@code report} regenerates docs/benchmarks.md and its charts; {@code load} and
 * {@code sequences} measure chosen workloads; {@code smoke} is the seconds-long run CI makes.
 *
 * <pre>
 * report [--quick]
 * galera [--quick]     (docs/benchmarks-galera.md: three instances on one node and on a three-node Galera cluster)
 * redis [--quick]      (docs/benchmarks-redis.md: monotonic with its cache on Redis beside Redis INCR and the database)
 * bounded [--quick]    (docs/benchmarks-bounded.md: bounded counters beside the guarded update and Redis, and sell-outs)
 * ratelimits [--quick] (docs/benchmarks-ratelimits.md and its summary in docs/benchmarks.md: rate limiters beside Bucket4j)
 * jpa [--quick]        (docs/benchmarks-jpa.md: @CountersSequence beside Hibernate's id generators, and membership
 *                       counters beside a hand-written INSERT + UPDATE)
 * jpa-point --database mariadb-durable --scenario inserts --workload counters,table --threads 64 --warmup 2s --duration 4s
 * load      --database mariadb-durable --workload atomic,plain-update --threads 1,8,64,256v --counters 1,100
 *           --warmup 5s --duration 5s      (256v: 256 callers on virtual threads)
 * sequences --database mariadb --workload sequence-block,auto-increment --threads 1,8 --duration 2s
 * sell-out  --database postgres-durable --workload bounded,guarded-update --stock 1000 --threads 64
 * smoke
 * </pre>
 */
public final class Benchmarks {

    private Benchmarks() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        if (args.length == 1) {
            args = args[0].trim().split("\\s+"); // -Dbenchmark.args="load --database h2" arrives as one argument
        }
        if (args.length == 0 || args[0].isEmpty()) {
            throw new IllegalArgumentException(
                    "Usage: report [--quick] | load [options] | sequences [options] | sell-out [options] | smoke");
        }
        Map<String, String> options = options(Arrays.copyOfRange(args, 1, args.length));
        boolean correct = switch (args[0]) {
            case "report" -> report(options.containsKey("quick"));
            case "load" -> load(options).stream().allMatch(LoadResult::correct);
            case "sequences" -> sequences(options).stream().allMatch(LoadResult::correct);
            case "sell-out" -> printSales(sellOuts(options));
            case "smoke" -> print(smoke()) & printSales(smokeSellOuts());
            case "galera" -> galera(options.containsKey("quick"));
            case "redis" -> redis(options.containsKey("quick"));
            case "bounded" -> bounded(options.containsKey("quick"));
            case "ratelimits" -> ratelimits(options.containsKey("quick"));
            case "jpa" -> jpa(options.containsKey("quick"));
            case "jpa-point" -> jpaPoints(options);
            default -> throw new IllegalArgumentException("Unknown command '" + args[0] + "'");
        };
        System.exit(correct ? 0 : 1);
    }

    /** A seconds-long run of every workload on H2: proves the driver works and every exact strategy stays exact. */
    static List<LoadResult> smoke() throws Exception {
        Duration warmup = Duration.ofMillis(100);
        Duration duration = Duration.ofMillis(300);
        List<LoadResult> results = new ArrayList<>();
        List<Workload.Kind> kinds = new ArrayList<>(Workloads.counting());
        kinds.addAll(Workloads.monotonicRedis());
        kinds.addAll(Workloads.bounded());
        for (Workload.Kind kind : kinds) {
            for (int counters : new int[] {1, 10}) {
                results.add(LoadDriver.run(BenchDatabase.H2, kind, 2, counters, warmup, duration));
            }
        }
        for (SequenceWorkload.Kind kind : Workloads.sequences()) {
            results.add(LoadDriver.runSequence(BenchDatabase.H2, kind, 2, warmup, duration));
        }
        return results;
    }

    /** A stock of this many sold out on H2 by every way of selling the bounded report compares. */
    static final long SMOKE_STOCK = 100;

    static List<SellOut.Result> smokeSellOuts() throws Exception {
        List<SellOut.Result> results = new ArrayList<>();
        for (SellOut.Kind kind : Workloads.sellOuts()) {
            results.add(SellOut.run(BenchDatabase.H2, kind, SMOKE_STOCK, 8));
        }
        return results;
    }

    private static List<LoadResult> load(Map<String, String> options) throws Exception {
        List<LoadResult> results = new ArrayList<>();
        for (BenchDatabase database : databases(options)) {
            for (Workload.Kind kind : selected(options, Workloads.all(), Workload.Kind::name)) {
                for (int counters : ints(options.getOrDefault("counters", "1"))) {
                    for (String threads :
                            options.getOrDefault("threads", "1,8,32").split(",")) {
                        boolean virtual = threads.endsWith("v"); // 256v: on virtual threads
                        LoadResult result = LoadDriver.run(
                                database,
                                kind,
                                Integer.parseInt(virtual ? threads.substring(0, threads.length() - 1) : threads),
                                virtual,
                                counters,
                                warmup(options),
                                duration(options));
                        System.out.println(result.line());
                        results.add(result);
                    }
                }
            }
        }
        return results;
    }

    private static List<SellOut.Result> sellOuts(Map<String, String> options) throws Exception {
        List<SellOut.Result> results = new ArrayList<>();
        long stock = Long.parseLong(options.getOrDefault("stock", "1000"));
        for (BenchDatabase database : databases(options)) {
            for (SellOut.Kind kind : selected(options, Workloads.stocks(), SellOut.Kind::name)) {
                for (int threads : ints(options.getOrDefault("threads", "64"))) {
                    results.add(SellOut.run(database, kind, stock, threads));
                }
            }
        }
        return results;
    }

    private static List<LoadResult> sequences(Map<String, String> options) throws Exception {
        List<LoadResult> results = new ArrayList<>();
        for (BenchDatabase database : databases(options)) {
            for (SequenceWorkload.Kind kind : selected(options, Workloads.sequences(), SequenceWorkload.Kind::name)) {
                for (int threads : ints(options.getOrDefault("threads", "1,8"))) {
                    LoadResult result =
                            LoadDriver.runSequence(database, kind, threads, warmup(options), duration(options));
                    System.out.println(result.line());
                    results.add(result);
                }
            }
        }
        return results;
    }

    private static boolean report(boolean quick) throws Exception {
        Report report = new Report(Path.of("docs"), quick);
        report.run();
        return report.allExact();
    }

    private static boolean galera(boolean quick) throws Exception {
        GaleraReport report = new GaleraReport(Path.of("docs"), quick);
        report.run();
        return report.allExact();
    }

    private static boolean redis(boolean quick) throws Exception {
        RedisReport report = new RedisReport(Path.of("docs"), quick);
        report.run();
        return report.allExact();
    }

    private static boolean bounded(boolean quick) throws Exception {
        BoundedReport report = new BoundedReport(Path.of("docs"), quick);
        report.run();
        return report.allExact();
    }

    private static boolean ratelimits(boolean quick) throws Exception {
        RateLimitReport report = new RateLimitReport(Path.of("docs"), quick);
        report.run();
        return report.allWithinBounds();
    }

    private static boolean jpa(boolean quick) throws Exception {
        JpaReport report = new JpaReport(Path.of("docs"), quick);
        report.run();
        return report.allExact();
    }

    /** Chosen points of the JPA report, printed: {@code --scenario} inserts, ids or toggles. */
    private static boolean jpaPoints(Map<String, String> options) throws Exception {
        String scenario = options.getOrDefault("scenario", JpaDriver.INSERTS);
        boolean exact = true;
        for (BenchDatabase database : databases(options)) {
            for (int threads : ints(options.getOrDefault("threads", "64"))) {
                for (String workload :
                        options.getOrDefault("workload", "counters").split(",")) {
                    JpaDriver.Result result = switch (scenario) {
                        case JpaDriver.INSERTS ->
                            JpaDriver.inserts(
                                    database, IdGenerator.named(workload), threads, warmup(options), duration(options));
                        case JpaDriver.IDS ->
                            JpaDriver.ids(
                                    database, IdGenerator.named(workload), threads, warmup(options), duration(options));
                        case JpaDriver.TOGGLES ->
                            JpaDriver.toggles(
                                    database,
                                    ToggleWorkload.named(workload),
                                    threads,
                                    warmup(options),
                                    duration(options));
                        default -> throw new IllegalArgumentException("Unknown scenario '" + scenario + "'");
                    };
                    System.out.println(result.line());
                    exact &= result.exact();
                }
            }
        }
        return exact;
    }

    /** Prints the sales and answers whether all were exact. */
    private static boolean printSales(List<SellOut.Result> results) {
        results.forEach(result -> System.out.println(result.line()));
        return results.stream().allMatch(SellOut.Result::exact);
    }

    private static boolean print(List<LoadResult> results) {
        results.forEach(result -> System.out.println(result.line()));
        return results.stream().allMatch(LoadResult::correct);
    }

    // ---- options ----

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("Expected an option starting with --, got '" + args[i] + "'");
            }
            String key = args[i].substring(2);
            boolean flag = i + 1 == args.length || args[i + 1].startsWith("--");
            options.put(key, flag ? "true" : args[++i]);
        }
        return options;
    }

    private static List<BenchDatabase> databases(Map<String, String> options) {
        return Arrays.stream(options.getOrDefault("database", "h2").split(","))
                .map(BenchDatabase::parse)
                .toList();
    }

    private static <T> List<T> selected(
            Map<String, String> options, List<T> all, java.util.function.Function<T, String> name) {
        String wanted = options.getOrDefault("workload", "all");
        if (wanted.equals("all")) {
            return all;
        }
        List<T> chosen = new ArrayList<>();
        for (String one : wanted.split(",")) {
            chosen.add(all.stream()
                    .filter(kind -> name.apply(kind).equals(one))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("Unknown workload '" + one + "'; known: "
                            + all.stream().map(name).toList())));
        }
        return chosen;
    }

    private static int[] ints(String list) {
        return Arrays.stream(list.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    private static Duration warmup(Map<String, String> options) {
        return duration(options.getOrDefault("warmup", "1s"));
    }

    private static Duration duration(Map<String, String> options) {
        return duration(options.getOrDefault("duration", "2s"));
    }

    /** {@code 500ms} or {@code 2s}. */
    static Duration duration(String text) {
        if (text.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
        }
        if (text.endsWith("s")) {
            return Duration.ofMillis(Math.round(Double.parseDouble(text.substring(0, text.length() - 1)) * 1_000));
        }
        throw new IllegalArgumentException("Expected a duration like 500ms or 2s, got '" + text + "'");
    }
}
