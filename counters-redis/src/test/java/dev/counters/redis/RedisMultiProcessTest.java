package dev.counters.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.contract.Concurrently;
import dev.counters.history.SequenceChecker;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.redis.testing.RedisClients;
import dev.counters.redis.testing.RedisServer;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.testing.ChildJvm;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Three JVM processes (application nodes) of four threads each count the same monotonic counters through one
 * redis-server and one MariaDB, while the test kills Redis and starts it again empty, then flushes it, under load.
 * Every value handed out is written to a file with the machine's monotonic clock read before and after its call,
 * so that values can be checked against each other across processes.
 *
 * <ul>
 *   <li>At {@code chance-to-write} 1.0 (two counters): no value is handed out twice, each thread's values increase,
 *       and a call that began after another returned got a larger value, whatever Redis lost in between; after a
 *       last loss the counter resumes above every value handed out.
 *   <li>At 0.1 (one counter, the same run): between losses the shared cache still hands out each value once; after
 *       a loss the counter resumes above the largest value persisted when it was lost, and only values above that
 *       are handed out again (the documented bound).
 * </ul>
 */
class RedisMultiProcessTest {

    private static final TestDatabase DATABASE = TestDatabase.MARIADB;
    private static final int PROCESSES = 3;
    private static final int THREADS = 4;
    /** Increments of the first counter between two faults, so that each fault happens under load. */
    private static final long PROGRESS = 500;

    /** A value handed out, with the machine's monotonic clock (System.nanoTime) read before the call and after it. */
    record Handed(long before, long after, long value) {}

    @Test
    void threeProcessesKeepTheirGuaranteesThroughARestartAndAFlushOfRedis() throws Exception {
        JooqStores stores = JooqStores.shared(DATABASE);
        String run = "ids" + System.nanoTime();
        List<String> exact = List.of(run + ".a", run + ".b");
        String sampled = run + ".c";
        CounterName sampledName = CounterName.of(sampled);
        Path out = Files.createTempDirectory("counters-redis-values-");
        Path stop = Files.createTempDirectory("counters-redis-stop-").resolve("stop");
        long started = System.nanoTime();
        try (RedisServer redis = RedisServer.startNew()) {
            String counters = exact.get(0) + "=1.0," + exact.get(1) + "=1.0," + sampled + "=0.1";
            List<ChildJvm> children = new ArrayList<>();
            for (int i = 0; i < PROCESSES; i++) {
                children.add(ChildJvm.start(
                        ChildMonotonicIncrementer.class,
                        DATABASE.jdbcUrl(),
                        DATABASE.user(),
                        DATABASE.password(),
                        stores.prefix(),
                        String.valueOf(redis.port()),
                        String.valueOf(THREADS),
                        counters,
                        out.toString(),
                        stop.toString()));
            }
            long stoppedAt;
            long restartedAt;
            long flushingAt;
            long flushedAt;
            long persistedAtStop;
            long persistedBeforeFlush;
            long unavailable = 0;
            try {
                for (ChildJvm child : children) {
                    child.awaitOutput("READY", 1, TimeUnit.MINUTES);
                }
                log(started, "children ready");
                String key = RedisMonotonicCache.DEFAULT_PREFIX + "monotonic:" + exact.get(0);
                long before = awaitValue(redis, key, PROGRESS);
                stoppedAt = System.nanoTime();
                redis.stop(); // every cached value lost; the children's calls time out meanwhile
                persistedAtStop = stores.store().maxOfShards(sampledName).orElse(0);
                Thread.sleep(1_000);
                redis.start();
                restartedAt = System.nanoTime();
                log(started, "redis restarted, stopped at " + before);
                long afterRestart = awaitValue(redis, key, before + PROGRESS);
                persistedBeforeFlush = stores.store().maxOfShards(sampledName).orElse(0);
                flushingAt = System.nanoTime();
                redis.flushAll();
                flushedAt = System.nanoTime();
                log(started, "redis flushed at " + afterRestart);
                awaitValue(redis, key, afterRestart + PROGRESS);
                Files.createFile(stop);
                for (ChildJvm child : children) {
                    Matcher printed = Pattern.compile("VALUES (\\d+) UNAVAILABLE (\\d+)")
                            .matcher(child.awaitSuccess(2, TimeUnit.MINUTES));
                    assertThat(printed.find()).isTrue();
                    unavailable += Long.parseLong(printed.group(2));
                }
                log(started, "children done");
            } finally {
                children.forEach(child -> child.process().destroyForcibly());
            }
            assertThat(unavailable)
                    .as("increments refused while Redis was down")
                    .isPositive();

            Map<String, Map<String, List<Handed>>> handed = read(out);
            assertThat(handed).containsOnlyKeys(exact.get(0), exact.get(1), sampled);
            for (String name : exact) {
                Map<String, List<Handed>> byThread = handed.get(name);
                assertThat(byThread).hasSize(PROCESSES * THREADS);
                SequenceChecker.Result result = SequenceChecker.check(values(byThread, h -> true));
                assertThat(result.valid()).as(name + ": " + result).isTrue();
                List<Handed> all = all(byThread);
                checkRealTimeOrder(name, all);
                // Each fault happened while values were handed out: some calls ended before it, some began after
                assertThat(all)
                        .anyMatch(h -> h.after() < stoppedAt)
                        .anyMatch(h -> h.before() > restartedAt && h.after() < flushingAt)
                        .anyMatch(h -> h.before() > flushedAt);
                System.out.printf(
                        "chance 1.0, %s: %d values from %d processes x %d threads, %s%n",
                        name, all.size(), PROCESSES, THREADS, result);
            }

            Map<String, List<Handed>> byThread = handed.get(sampled);
            List<Handed> all = all(byThread);
            // Between losses one shared cache: each value once
            for (Predicate<Handed> window : List.<Predicate<Handed>>of(
                    h -> h.after() < stoppedAt,
                    h -> h.before() > restartedAt && h.after() < flushingAt,
                    h -> h.before() > flushedAt)) {
                SequenceChecker.Result result = SequenceChecker.check(values(byThread, window));
                assertThat(result.valid())
                        .as("chance 0.1 between losses: " + result)
                        .isTrue();
                assertThat(result.numbers()).isPositive();
            }
            // After each loss: above what was persisted when it happened
            assertThat(all)
                    .filteredOn(h -> h.before() > restartedAt)
                    .allSatisfy(h -> assertThat(h.value()).isGreaterThan(persistedAtStop));
            assertThat(all)
                    .filteredOn(h -> h.before() > flushedAt)
                    .allSatisfy(h -> assertThat(h.value()).isGreaterThan(persistedBeforeFlush));
            Set<Long> seen = new HashSet<>();
            long repeated = all.stream().filter(h -> !seen.add(h.value())).count();
            System.out.printf(
                    "chance 0.1: %d values, persisted %d at the restart and %d at the flush, %d values "
                            + "handed out again%n",
                    all.size(), persistedAtStop, persistedBeforeFlush, repeated);

            try (RedisClients.Lettuce lettuce = RedisClients.lettuce(redis);
                    CounterService service = CounterService.builder(stores.store())
                            .defaultStrategy(MonotonicSettings.defaults())
                            .strategy(sampled, MonotonicSettings.defaults().withChanceToWrite(0.1))
                            .monotonicCache(RedisMonotonicCache.lettuce(lettuce.connection())
                                    .build())
                            .build()) {
                // One more loss, quiet this time: the exact counters resume above every value handed out...
                long persisted = stores.store().maxOfShards(sampledName).orElseThrow();
                long highest = all.stream().mapToLong(Handed::value).max().orElseThrow();
                redis.flushAll();
                for (String name : exact) {
                    assertThat(service.incrementAndGet(name, 1))
                            .isGreaterThan(all(handed.get(name)).stream()
                                    .mapToLong(Handed::value)
                                    .max()
                                    .orElseThrow());
                }
                // ...and the sampled one right above its largest persisted value, repeating only values above it
                ConcurrentLinkedQueue<Long> after = new ConcurrentLinkedQueue<>();
                Concurrently.run(4, thread -> {
                    for (int i = 0; i < 50; i++) {
                        after.add(service.incrementAndGet(sampled, 1));
                    }
                });
                assertThat(after.stream().mapToLong(Long::longValue).min().orElseThrow())
                        .isEqualTo(persisted + 1);
                Set<Long> before = new HashSet<>();
                all.forEach(h -> before.add(h.value()));
                List<Long> again = after.stream().filter(before::contains).toList();
                assertThat(again)
                        .allSatisfy(value ->
                                assertThat(value).isGreaterThan(persisted).isLessThanOrEqualTo(highest));
                System.out.printf(
                        "chance 0.1, quiet loss: highest %d, persisted %d, %d values handed out again%n",
                        highest, persisted, again.size());
            }
        }
    }

    private static void log(long start, String what) {
        System.out.printf("%6d ms: %s%n", (System.nanoTime() - start) / 1_000_000, what);
    }

    /** Waits until the cached value of {@code key} reaches {@code atLeast}, and returns it. */
    private static long awaitValue(RedisServer redis, String key, long atLeast) {
        long[] seen = new long[1];
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    String value;
                    try {
                        value = redis.command("HGET", key, "v");
                    } catch (IllegalStateException notYet) {
                        return false;
                    }
                    seen[0] = value == null ? Long.MIN_VALUE : Long.parseLong(value);
                    return seen[0] >= atLeast;
                });
        return seen[0];
    }

    /**
     * A monotonic sequence is linearizable: a call that began after another returned received a larger value,
     * whichever processes made them and whatever the cache lost in between.
     */
    private static void checkRealTimeOrder(String name, List<Handed> all) {
        List<Handed> byEnd =
                all.stream().sorted(Comparator.comparingLong(Handed::after)).toList();
        long[] ends = byEnd.stream().mapToLong(Handed::after).toArray();
        Handed[] highestSoFar = new Handed[byEnd.size()];
        for (int i = 0; i < byEnd.size(); i++) {
            Handed h = byEnd.get(i);
            highestSoFar[i] = i > 0 && highestSoFar[i - 1].value() > h.value() ? highestSoFar[i - 1] : h;
        }
        for (Handed later : all) {
            int at = Arrays.binarySearch(ends, later.before());
            int lastEndedBefore = (at >= 0 ? at : -at - 1) - 1;
            while (lastEndedBefore >= 0 && ends[lastEndedBefore] >= later.before()) {
                lastEndedBefore--;
            }
            if (lastEndedBefore >= 0) {
                Handed earlier = highestSoFar[lastEndedBefore];
                assertThat(later.value())
                        .as("%s: %s began after %s returned", name, later, earlier)
                        .isGreaterThan(earlier.value());
            }
        }
    }

    private static List<Handed> all(Map<String, List<Handed>> byThread) {
        return byThread.values().stream().flatMap(List::stream).toList();
    }

    private static Map<String, List<Long>> values(Map<String, List<Handed>> byThread, Predicate<Handed> which) {
        Map<String, List<Long>> values = new LinkedHashMap<>();
        byThread.forEach((thread, handed) -> values.put(
                thread, handed.stream().filter(which).map(Handed::value).toList()));
        return values;
    }

    /** counter -> thread's file -> values in the order received. */
    private static Map<String, Map<String, List<Handed>>> read(Path directory) throws IOException {
        Map<String, Map<String, List<Handed>>> handed = new TreeMap<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.toList()) {
                String[] parts = file.getFileName()
                        .toString()
                        .replaceFirst("\\.bin$", "")
                        .split("-", 3);
                List<Handed> values = new ArrayList<>();
                try (InputStream raw = Files.newInputStream(file);
                        DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
                    for (long left = Files.size(file) / 24; left > 0; left--) {
                        values.add(new Handed(in.readLong(), in.readLong(), in.readLong()));
                    }
                }
                handed.computeIfAbsent(parts[2], name -> new TreeMap<>()).put(parts[0] + "-" + parts[1], values);
            }
        }
        return handed;
    }
}
