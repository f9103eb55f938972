package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.BoundedState;
import dev.counters.CounterService;
import dev.counters.history.CounterChecker;
import dev.counters.history.History;
import dev.counters.history.SequenceChecker;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.PatroniCluster;
import dev.counters.testing.ChildJvm;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * A PostgreSQL primary with two standbys under Patroni in synchronous mode ({@code synchronous_mode: true},
 * {@code synchronous_commit: on}: a commit is acknowledged once a standby has it), and two application processes
 * ({@link ChildFailoverClient}) writing through pgJDBC's multi-host URL with every strategy, both sequence modes,
 * bounded stocks, idempotency keys and a monotonic counter. Under that load the primary is killed with SIGKILL and
 * Patroni promotes the synchronous standby; the old primary is restarted and rejoins by {@code pg_rewind}; then a
 * {@code patronictl switchover} hands the primary to the other standby, and the demoted one follows it. Nothing a
 * process was told is lost or counted twice, no number or monotonic value is handed out twice (a failover may leave
 * gaps: values skipped ahead after a change of timeline), and the time each process needs to write again after the
 * kill and after the switchover is measured.
 */
class PatroniSynchronousFailoverTest {

    private static final String SCENARIO = "Patroni synchronous: primary killed -9, rejoined, switchover";
    private static PatroniCluster cluster;
    private static HikariDataSource pool;

    @RegisterExtension
    static final TestWatcher KEEP_LOGS = new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
            if (cluster != null) {
                cluster.keepLogs();
            }
        }
    };

    @BeforeAll
    static void startCluster() {
        cluster = PatroniCluster.builder()
                .synchronousMode(true)
                .parameter("synchronous_commit", "on")
                .start();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(cluster.jdbcUrl());
        config.setUsername(PatroniCluster.USER);
        config.setPassword(PatroniCluster.PASSWORD);
        config.setMaximumPoolSize(4);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void stopCluster() {
        if (pool != null) {
            pool.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private final List<Client> clients = new ArrayList<>();

    /** A test that failed midway leaves no process writing on. */
    @AfterEach
    void stopClients() {
        clients.forEach(client -> client.jvm().process().destroyForcibly());
    }

    /** An application process, the files it reports through, and what it wrote. */
    private record Client(String session, ChildJvm jvm, Path history, Path numbers, Path progress) {

        static Client start(String session, String prefix, Path stop) throws IOException {
            Path history = Files.createTempFile("counters-patroni-history-", ".tsv");
            Path numbers = Files.createTempFile("counters-patroni-numbers-", ".tsv");
            Path progress = Files.createTempFile("counters-patroni-progress-", ".bin");
            for (Path file : List.of(history, numbers, progress)) {
                file.toFile().deleteOnExit();
            }
            ChildJvm jvm = ChildJvm.start(
                    ChildFailoverClient.class,
                    cluster.jdbcUrl(),
                    PatroniCluster.USER,
                    PatroniCluster.PASSWORD,
                    prefix,
                    session,
                    history.toString(),
                    numbers.toString(),
                    progress.toString(),
                    stop.toString());
            return new Client(session, jvm, history, numbers, progress);
        }

        /** When the latest acknowledged write that reached the database was invoked (the machine's monotonic clock). */
        long lastWrite() throws IOException {
            byte[] bytes = Files.readAllBytes(progress);
            return bytes.length < Long.BYTES ? 0 : ByteBuffer.wrap(bytes).getLong(0);
        }
    }

    @Test
    void aKilledPrimaryAndASwitchoverUnderLoadFromTwoProcessesLoseNothingAndRepeatNoValue() throws Exception {
        String prefix = "p" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        JooqCounterStore.builder(pool).tablePrefix(prefix).migrateSchema(true).build();
        Path stop = Files.createTempDirectory("counters-patroni-").resolve("stop");
        for (String session : List.of("app0", "app1")) {
            clients.add(Client.start(session, prefix, stop));
        }
        for (Client client : clients) {
            client.jvm().awaitOutput("READY", 2, TimeUnit.MINUTES);
        }
        Thread.sleep(3_000);

        PatroniCluster.Node killed = cluster.primary();
        long killedAt = System.nanoTime();
        cluster.kill(killed);
        PatroniCluster.Node promoted = cluster.awaitNewPrimary(killed);
        long promotedMillis = millisSince(killedAt);
        // Backends on the dead postmaster can still commit for a few ms: look for writes on the new primary.
        long killOver = awaitWritesAfter(clients, System.nanoTime(), "the kill of " + killed);
        Thread.sleep(1_000);
        long rejoinStarted = System.nanoTime();
        cluster.restart(killed);
        long rejoinMillis = millisSince(rejoinStarted);
        Thread.sleep(1_000);

        PatroniCluster.Node candidate = cluster.switchoverCandidate();
        long switchedAt = System.nanoTime();
        cluster.switchover(candidate);
        long switchedMillis = millisSince(switchedAt);
        long switchoverOver = awaitWritesAfter(clients, System.nanoTime(), "the switchover to " + candidate);
        cluster.awaitStreaming(); // the demoted primary follows the new one: 3 members again
        long afterSwitchover = System.nanoTime();
        // Every strategy of every process must write again from here: one whose circuit breaker opened during the
        // switchover tries again within the breaker's longest wait in the open state (10 s).
        Thread.sleep(12_000);
        Files.createFile(stop);

        History history = History.timedBy(System::nanoTime);
        Map<String, List<String>> lines = new LinkedHashMap<>();
        Map<String, List<Long>> numbers = new TreeMap<>();
        for (Client client : clients) {
            String printed = client.jvm().awaitSuccess(3, TimeUnit.MINUTES);
            System.out.println("[patroni] " + client.session() + ": "
                    + printed.lines()
                            .filter(line -> line.startsWith("DONE"))
                            .findFirst()
                            .orElse(printed));
            List<String> written = Files.readAllLines(client.history());
            lines.put(client.session(), written);
            history.merge(written);
            for (String line : Files.readAllLines(client.numbers())) {
                String[] field = line.split("\t");
                numbers.computeIfAbsent(field[0], caller -> new ArrayList<>()).add(Long.parseLong(field[1]));
            }
        }

        String events = String.format(
                "%s killed -9, %s promoted after %d ms, %s rejoined in %d ms; switchover to %s in %d ms",
                killed, promoted, promotedMillis, killed, rejoinMillis, candidate, switchedMillis);
        List<String> problems = new ArrayList<>();
        JooqCounterStore reader =
                JooqCounterStore.builder(pool).tablePrefix(prefix).build();
        for (String strategy : ChildFailoverClient.STRATEGIES.keySet()) {
            for (boolean keyed : List.of(false, true)) {
                if (!keyed || ChildFailoverClient.KEYED.contains(strategy)) {
                    String subject = strategy + (keyed ? "-keyed" : "");
                    CounterChecker.Reads reads = strategy.equals("buffered")
                            ? CounterChecker.Reads.READ_YOUR_WRITES
                            : CounterChecker.Reads.LINEARIZABLE;
                    List<CounterChecker.Result> results =
                            Workload.names(subject + ".", ChildFailoverClient.COUNTERS).stream()
                                    .map(counter -> CounterChecker.check(
                                            history, counter, JooqStores.total(reader, counter), reads))
                                    .toList();
                    check(subject, results, keyed, lines, afterSwitchover, events, problems);
                }
            }
        }
        try (CounterService shop = CounterService.builder(reader)
                .defaultStrategy(ChildFailoverClient.stock())
                .build()) {
            List<CounterChecker.Result> results = new ArrayList<>();
            for (String stock : Workload.names("stock.", 2)) {
                BoundedState state = shop.bounded(stock).state();
                results.add(CounterChecker.checkBounded(
                        history, stock, state.value(), ChildFailoverClient.STOCK, 0L, null));
                long room = state.pool().towardMin()
                        + state.allowances().values().stream()
                                .mapToLong(allowance -> allowance.towardMin())
                                .sum();
                if (room != state.value()) {
                    problems.add(stock + ": the pool and the allowances hold " + room + ", the value is " + state);
                }
            }
            check("bounded, escrow, keyed", results, true, lines, afterSwitchover, events, problems);
        }
        for (String kind : List.of("block", "gapless", "monotonic")) {
            checkNumbers(kind, numbers, events, problems);
        }
        Map<String, long[]> timed = new LinkedHashMap<>();
        timed.put("kill -9 of the primary", new long[] {killedAt, killOver});
        timed.put("switchover", new long[] {switchedAt, switchoverOver});
        for (Map.Entry<String, long[]> event : timed.entrySet()) {
            List<String> times = new ArrayList<>();
            for (Client client : clients) {
                long[] pause = writesAgain(lines.get(client.session()), event.getValue()[0], event.getValue()[1]);
                times.add(String.format(
                        "%s writes again after %d ms (longest pause %d ms)", client.session(), pause[0], pause[1]));
            }
            ReliabilityReport.row(
                    "Patroni synchronous: time to write again",
                    event.getKey(),
                    String.join(", ", times) + " | " + events + " | both processes wrote again");
        }
        assertThat(problems).as("what the failover broke").isEmpty();
    }

    private static void check(
            String subject,
            List<CounterChecker.Result> results,
            boolean keyed,
            Map<String, List<String>> lines,
            long since,
            String events,
            List<String> problems) {
        long ok = results.stream().mapToLong(CounterChecker.Result::ok).sum();
        long failed = results.stream().mapToLong(CounterChecker.Result::failed).sum();
        long unknown =
                results.stream().mapToLong(CounterChecker.Result::unknown).sum();
        long applied = results.stream()
                .mapToLong(CounterChecker.Result::unknownApplied)
                .sum();
        long reads = results.stream().mapToLong(CounterChecker.Result::reads).sum();
        // Every process wrote again, after both events: a strategy stuck after a failover is a failure too.
        Map<String, Long> lateWrites = new TreeMap<>();
        lines.forEach((session, history) -> lateWrites.put(session, acknowledgedAfter(history, results, since)));
        boolean exact = results.stream().allMatch(CounterChecker.Result::valid) && (!keyed || unknown == 0);
        ReliabilityReport.row(
                SCENARIO,
                subject,
                String.format(
                        "%d changes by 2 processes (%d ok, %d refused, %d unknown of which %d applied), %d reads;"
                                + " acknowledged after the switchover: %s | %s | %s",
                        ok + failed + unknown,
                        ok,
                        failed,
                        unknown,
                        applied,
                        reads,
                        lateWrites,
                        events,
                        exact ? "exact" : "VIOLATED"));
        results.stream().filter(result -> !result.valid()).forEach(result -> problems.add(subject + " " + result));
        if (keyed && unknown > 0) {
            problems.add(subject + ": " + unknown + " keyed changes left unknown");
        }
        lateWrites.forEach((session, count) -> {
            if (count == 0) {
                problems.add(subject + ": " + session + " acknowledged nothing after the switchover");
            }
        });
    }

    /** How many changes of {@code results}' counters, invoked after {@code since}, were acknowledged. */
    private static long acknowledgedAfter(List<String> history, List<CounterChecker.Result> results, long since) {
        List<String> counters =
                results.stream().map(CounterChecker.Result::counter).toList();
        return history.stream()
                .map(line -> line.split("\t"))
                .filter(f -> f[0].equals("add") && f[6].equals("OK") && counters.contains(f[2]))
                .filter(f -> Long.parseLong(f[4]) > since)
                .count();
    }

    /**
     * Sequences: no number handed out twice, to any caller of either process, and each caller's increasing; gaps are
     * allowed (a block lost with a process, a skip after a change of timeline). Monotonic counters are one per
     * process (the in-JVM cache): each one's values, across its service's cold starts, are unique and increasing.
     */
    private static void checkNumbers(
            String kind, Map<String, List<Long>> numbers, String events, List<String> problems) {
        Map<String, Map<String, List<Long>>> groups = new TreeMap<>();
        numbers.forEach((caller, list) -> {
            if (caller.contains("/" + kind)) {
                String group = kind.equals("monotonic") ? caller : kind;
                groups.computeIfAbsent(group, g -> new TreeMap<>()).put(caller, list);
            }
        });
        List<String> parts = new ArrayList<>();
        boolean valid = true;
        for (Map.Entry<String, Map<String, List<Long>>> group : groups.entrySet()) {
            SequenceChecker.Result result = SequenceChecker.check(group.getValue());
            List<Long> all = group.getValue().values().stream()
                    .flatMap(List::stream)
                    .sorted()
                    .toList();
            long gaps = 0;
            for (int i = 1; i < all.size(); i++) {
                gaps += all.get(i) - all.get(i - 1) > 1 ? 1 : 0;
            }
            parts.add(String.format(
                    "%s: %d values to %d callers, from %d to %d, %d gaps",
                    group.getKey(),
                    result.numbers(),
                    result.callers(),
                    all.isEmpty() ? 0 : all.get(0),
                    all.isEmpty() ? 0 : all.get(all.size() - 1),
                    gaps));
            if (!result.valid()) {
                valid = false;
                problems.add(kind + " " + result);
            }
            if (result.numbers() == 0) {
                problems.add(group.getKey() + ": nothing handed out");
            }
        }
        if (groups.isEmpty()) {
            problems.add(kind + ": no caller");
        }
        String subject = kind.equals("monotonic") ? "monotonic (one per process)" : kind + " sequence";
        ReliabilityReport.row(
                SCENARIO,
                subject,
                String.join("; ", parts) + " | " + events + " | " + (valid ? "no value handed out twice" : "VIOLATED"));
    }

    /**
     * When a process wrote again after {@code event}: its writes that reach the database (not the buffered ones,
     * acknowledged from memory), ordered by completion, and the longest pause between consecutive acknowledgements
     * (the first pause starting at the event) until {@code over}, when every process had written on the new primary.
     * Returns the milliseconds from the event to the end of that pause, and the pause's length.
     */
    static long[] writesAgain(List<String> history, long event, long over) {
        List<Long> completions = history.stream()
                .map(line -> line.split("\t"))
                .filter(f -> f[0].equals("add") && f[6].equals("OK") && !f[2].startsWith("buffered"))
                .map(f -> Long.parseLong(f[5]))
                .filter(completed -> completed > event && completed <= over)
                .sorted()
                .collect(Collectors.toList());
        long previous = event;
        long longest = -1;
        long end = event;
        for (long completed : completions) {
            if (completed - previous > longest) {
                longest = completed - previous;
                end = completed;
            }
            previous = completed;
        }
        return new long[] {TimeUnit.NANOSECONDS.toMillis(end - event), TimeUnit.NANOSECONDS.toMillis(longest)};
    }

    /**
     * Waits until every process acknowledged a write, invoked after {@code since}, that reached the database; returns
     * when it saw the last one.
     */
    private static long awaitWritesAfter(List<Client> clients, long since, String event) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Client client : clients) {
            while (client.lastWrite() <= since) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(client.session() + " wrote nothing in the minute after " + event + ":\n"
                            + client.jvm().output());
                }
                Thread.sleep(20);
            }
        }
        return System.nanoTime();
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }
}
