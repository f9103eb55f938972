package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.mysql.cj.jdbc.ServerPreparedStatement;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.NodeIdInUseException;
import dev.counters.StrategyStatistics;
import dev.counters.TransientStoreException;
import dev.counters.history.CounterChecker;
import dev.counters.history.History;
import dev.counters.history.SequenceChecker;
import dev.counters.history.UniqueDeltas;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.GaleraCluster;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import io.github.resilience4j.retry.RetryRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A three-node Galera cluster, every node taking writes at once: application pools each prefer a node of their own
 * (and fail over to the others), and increment the same counters and draw from the same sequences. Every exact
 * strategy stays exact, conflicts between nodes are rolled back and retried, {@code node} counters never conflict,
 * and a node killed with SIGKILL under load loses no acknowledged increment and repeats no number.
 */
class GaleraTest {

    private static final int COUNTERS = 8;
    private static final int WRITERS_PER_NODE = 2;

    private final GaleraCluster cluster = GaleraNodes.cluster();
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final List<JooqCounterStore> stores = new ArrayList<>();
    private final List<AutoCloseable> services = new ArrayList<>();
    private String prefix;

    @BeforeEach
    void setUp() {
        prefix = GaleraNodes.freshSchema();
        for (int node = 0; node < GaleraNodes.NODES; node++) {
            HikariDataSource pool = GaleraNodes.pool(node, 24);
            pools.add(pool);
            stores.add(JooqCounterStore.builder(pool).tablePrefix(prefix).build());
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable service : services) {
            service.close();
        }
        pools.forEach(HikariDataSource::close);
    }

    /** Retries of one strategy's services, and how many of them followed a certification conflict. */
    private static final class Retries {

        final RetryRegistry registry = RetryRegistry.ofDefaults();
        final AtomicLong retries = new AtomicLong();
        final AtomicLong afterConflict = new AtomicLong();

        Retries() {
            registry.getEventPublisher()
                    .onEntryAdded(added -> added.getAddedEntry()
                            .getEventPublisher()
                            .onRetry(retry -> {
                                retries.incrementAndGet();
                                if (isCertificationConflict(retry.getLastThrowable())) {
                                    afterConflict.incrementAndGet();
                                }
                            }));
        }
    }

    /** Galera reports a transaction that lost certification as a deadlock: 1213, SQL state 40001. */
    static boolean isCertificationConflict(@Nullable Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getErrorCode() == 1213) {
                return true;
            }
        }
        return false;
    }

    /** One strategy's part of a run: a service per cluster node, all on the same counters, with one history. */
    private record Subject(
            String name,
            List<CounterService> services,
            History history,
            Retries retries,
            @Nullable KeyedCallers keyed) {

        void flush() throws Exception {
            for (CounterService service : services) {
                service.flush().get(60, TimeUnit.SECONDS);
            }
        }
    }

    private Subject subject(String name, StrategySettings factory, Workload workload, @Nullable KeyedCallers keyed) {
        Retries retries = new Retries();
        History history = new History();
        List<String> counters = Workload.names(name + ".", COUNTERS);
        UniqueDeltas deltas = name.startsWith("buffered")
                ? UniqueDeltas.between(new Random(), 1, 1L << 31, false)
                : UniqueDeltas.large(new Random());
        List<CounterService> nodes = new ArrayList<>();
        for (JooqCounterStore store : stores) {
            CounterService service = CounterService.builder(store)
                    .defaultStrategy(factory)
                    .retryRegistry(keyed != null ? keyed.retries : retries.registry)
                    .build();
            services.add(service);
            nodes.add(service);
            workload.increments(
                    service,
                    keyed == null ? service::increment : keyed.of(service),
                    history,
                    counters,
                    deltas,
                    WRITERS_PER_NODE);
        }
        return new Subject(name, nodes, history, retries, keyed);
    }

    private Map<String, List<Long>> drawOnEveryNode(Workload workload, String sequence, SequenceSettings settings) {
        Map<String, List<Long>> numbers = Workload.newNumbers();
        for (JooqCounterStore store : stores) {
            SequenceService sequences =
                    SequenceService.builder(store).defaultSettings(settings).build();
            services.add(sequences);
            workload.numbers(sequences, sequence, WRITERS_PER_NODE, numbers);
        }
        return numbers;
    }

    private static StrategySettings buffered() {
        return BufferedSettings.defaults().withFlushInterval(Duration.ofMillis(20));
    }

    private static StrategySettings deltaLog() {
        return DeltaLogSettings.defaults().withRecountAtDeltas(100);
    }

    /** The strategies one at a time, so that the cluster's own conflict counters tell each one's conflicts. */
    @Test
    void everyStrategyWritingThroughEveryNodeAtOnceIsExactAndNodeCountersNeverConflict() throws Exception {
        Map<String, StrategySettings> strategies = new java.util.LinkedHashMap<>();
        strategies.put("atomic", AtomicSettings.defaults());
        strategies.put("optimistic", OptimisticSettings.defaults());
        strategies.put("sharded", ShardedSettings.defaults());
        strategies.put("node", NodeSettings.defaults());
        strategies.put("delta-log", deltaLog());
        strategies.put("buffered", buffered());
        Map<String, Long> conflictsOf = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, StrategySettings> strategy : strategies.entrySet()) {
            long before = GaleraNodes.conflicts();
            Subject subject;
            Workload workload = new Workload();
            if (strategy.getKey().equals("buffered")) {
                workload.pauseBetweenOperations(Duration.ofMillis(1));
            }
            try (workload) {
                subject = subject(strategy.getKey(), strategy.getValue(), workload, null);
                Thread.sleep(3_000);
            }
            subject.flush();
            long conflicts = GaleraNodes.conflicts() - before;
            conflictsOf.put(strategy.getKey(), conflicts);
            // A buffered counter reads what is stored and what its own node holds: not yet the other nodes' pending.
            check(
                    subject,
                    "every node writing",
                    conflicts,
                    strategy.getKey().equals("buffered")
                            ? CounterChecker.Reads.READ_YOUR_WRITES
                            : CounterChecker.Reads.LINEARIZABLE);
        }
        assertThat(conflictsOf.get("node"))
                .as("node counters: each node writes only its own rows")
                .isZero();
        assertThat(conflictsOf.get("atomic"))
                .as("one hot row written through three nodes conflicts")
                .isPositive();

        for (SequenceSettings settings : List.of(
                SequenceSettings.defaults().withBlockSize(10).withMaxBlockSize(10), SequenceSettings.gapless())) {
            boolean gapless = settings.equals(SequenceSettings.gapless());
            String name = gapless ? "gapless sequence" : "block sequence";
            long before = GaleraNodes.conflicts();
            Map<String, List<Long>> numbers;
            try (Workload workload = new Workload()) {
                numbers = drawOnEveryNode(workload, gapless ? "gapless" : "block", settings);
                Thread.sleep(3_000);
            }
            long conflicts = GaleraNodes.conflicts() - before;
            SequenceChecker.Result result = SequenceChecker.check(numbers);
            TreeSet<Long> all = new TreeSet<>();
            numbers.values().forEach(all::addAll);
            boolean consecutive = all.size() == result.numbers() && all.first() == 1 && all.last() == all.size();
            ReliabilityReport.row(
                    "Galera: every node writing",
                    name,
                    String.format(
                            "%d numbers handed out to %d "
                                    + "callers through 3 nodes | %d certification conflicts | %s%s",
                            result.numbers(),
                            result.callers(),
                            conflicts,
                            result.valid() ? "no duplicates" : "VIOLATED",
                            gapless ? (consecutive ? ", consecutive from 1" : ", NOT CONSECUTIVE") : ""));
            assertThat(result.valid()).as(name + " " + result).isTrue();
            if (gapless) {
                assertThat(all)
                        .as("gapless numbers: 1..n, each once")
                        .containsExactlyElementsOf(
                                LongStream.rangeClosed(1, all.size()).boxed().toList());
            }
        }
    }

    /**
     * Folds of one delta log racing on every node, with no lease to keep them apart, through Connector/J preparing
     * every statement on the server (the binary protocol, the setting most exposed to MariaDB losing the abort of a
     * transaction that a write on another node conflicted with): every fold that reports success was applied, whole,
     * and so no delta is in two successful folds and the total is what was appended. Without
     * {@code ClientPreparedOnGalera}, folds reported success having done nothing, and some added their sum while
     * their marks were lost.
     */
    @Test
    void foldsRacingOnEveryNodeThroughServerPreparedStatementsEachApplyWholeOnce() throws Exception {
        List<JooqCounterStore> exposed = new ArrayList<>();
        for (int node = 0; node < GaleraNodes.NODES; node++) {
            HikariDataSource pool = GaleraNodes.pool(node, 4, "&useServerPrepStmts=true&cachePrepStmts=false");
            pools.add(pool);
            exposed.add(JooqCounterStore.builder(pool).tablePrefix(prefix).build());
        }
        CounterName counter = CounterName.of("fold-race");
        AtomicLong appended = new AtomicLong();
        AtomicLong rolledBack = new AtomicLong();
        AtomicLong successfulFolds = new AtomicLong();
        Map<String, Integer> foldsOf = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        List<CompletableFuture<Void>> workers = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(2 * GaleraNodes.NODES);
        for (int node = 0; node < GaleraNodes.NODES; node++) {
            JooqCounterStore store = exposed.get(node);
            String ids = "n" + node + "-";
            workers.add(CompletableFuture.runAsync(
                    () -> {
                        for (long i = 0; !stop.get(); i++) {
                            if (store.appendDelta(counter, ids + i, 1, Instant.now())
                                    .isEmpty()) {
                                appended.incrementAndGet();
                            }
                        }
                    },
                    threads));
            workers.add(CompletableFuture.runAsync(
                    () -> {
                        while (!stop.get()) {
                            Map<String, Long> deltas = store.unfoldedDeltas(counter, 200);
                            try {
                                if (!deltas.isEmpty()
                                        && store.foldDeltas(
                                                counter,
                                                "folded",
                                                deltas.keySet(),
                                                deltas.values().stream()
                                                        .mapToLong(Long::longValue)
                                                        .sum(),
                                                Instant.EPOCH)) {
                                    successfulFolds.incrementAndGet();
                                    deltas.keySet().forEach(id -> foldsOf.merge(id, 1, Integer::sum));
                                }
                            } catch (TransientStoreException e) {
                                rolledBack.incrementAndGet(); // a conflict: nothing of the fold was applied
                            }
                        }
                    },
                    threads));
        }
        Thread.sleep(4_000);
        stop.set(true);
        CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        threads.shutdown();

        long foldedTwice = foldsOf.values().stream().filter(folds -> folds > 1).count();
        long total = GaleraNodes.storedAt(prefix).getAll(List.of(counter)).get(counter);
        ReliabilityReport.row(
                "Galera: folds racing on every node",
                "delta-log store",
                String.format(
                        "%d deltas "
                                + "appended through 3 nodes, %d folded by %d folds that reported success, %d folds rolled back by a "
                                + "conflict; Connector/J with server-side prepared statements, uncached | %d deltas in two successful "
                                + "folds, total %d | %s",
                        appended.get(),
                        foldsOf.size(),
                        successfulFolds.get(),
                        rolledBack.get(),
                        foldedTwice,
                        total,
                        foldedTwice == 0 && total == appended.get() ? "exact" : "VIOLATED"));
        assertThat(rolledBack.get())
                .as("folds rolled back by a conflict between nodes")
                .isPositive();
        assertThat(foldedTwice)
                .as("deltas in two folds that both reported success")
                .isZero();
        assertThat(total).as("the counter: every delta appended, once").isEqualTo(appended.get());
    }

    /**
     * On Galera the store's statements travel as text, while the application's own, on the same pooled connection,
     * keep the pool's settings (here server-side prepared statements): the store switches Connector/J's preparation
     * to the client only while it holds the connection.
     */
    @Test
    void theStorePreparesOnTheClientOnlyWhileItHoldsAConnection() throws Exception {
        HikariDataSource pool = GaleraNodes.pool(0, 1); // one connection: the store's and the application's
        pools.add(pool);
        CounterService service = CounterService.builder(
                        JooqCounterStore.builder(pool).tablePrefix(prefix).build())
                .defaultStrategy(AtomicSettings.defaults())
                .build();
        services.add(service);
        long prepared = serverPreparedStatements(pool);
        for (int i = 0; i < 5; i++) {
            service.increment("prepared-on-the-client", 1);
            service.get("prepared-on-the-client");
        }
        assertThat(serverPreparedStatements(pool))
                .as("statements the server prepared for the store")
                .isEqualTo(prepared);
        try (Connection connection = pool.getConnection();
                PreparedStatement statement = connection.prepareStatement("select 1")) {
            assertThat(statement.isWrapperFor(ServerPreparedStatement.class))
                    .as("the application's statement, prepared on the server as its pool says")
                    .isTrue();
        }
        assertThat(service.get("prepared-on-the-client")).isEqualTo(5);
    }

    /** How many statements the server prepared in the session of the pool's one connection. */
    private static long serverPreparedStatements(HikariDataSource pool) throws SQLException {
        try (Connection connection = pool.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("show session status like 'Com_stmt_prepare'")) {
            assertThat(rows.next()).isTrue();
            return rows.getLong(2);
        }
    }

    @Test
    void aNodeKilledUnderLoadLosesNoAcknowledgedIncrementAndRepeatsNoNumber() throws Exception {
        List<Subject> subjects = new ArrayList<>();
        Map<String, List<Long>> blockNumbers;
        Map<String, List<Long>> gaplessNumbers;
        int victim = 1;
        long killedForMillis;
        long rejoinMillis;
        // Paced: on 2 cores, three nodes at full write load leave a rejoining node's single applier behind for good.
        Workload workload = new Workload().pauseBetweenOperations(Duration.ofMillis(2));
        Workload inMemory = new Workload().pauseBetweenOperations(Duration.ofMillis(1));
        try (workload;
                inMemory) {
            subjects.add(subject("atomic", AtomicSettings.defaults(), workload, null));
            subjects.add(subject("optimistic", OptimisticSettings.defaults(), workload, null));
            subjects.add(subject("sharded", ShardedSettings.defaults(), workload, null));
            subjects.add(subject("node", NodeSettings.defaults(), workload, null));
            subjects.add(subject("delta-log", deltaLog(), workload, null));
            subjects.add(subject("buffered", buffered(), inMemory, null));
            subjects.add(subject("atomic-keyed", AtomicSettings.defaults(), workload, new KeyedCallers()));
            subjects.add(subject("buffered-keyed", buffered(), inMemory, new KeyedCallers()));
            blockNumbers = drawOnEveryNode(
                    workload,
                    "block",
                    SequenceSettings.defaults().withBlockSize(10).withMaxBlockSize(10));
            gaplessNumbers = drawOnEveryNode(workload, "gapless", SequenceSettings.gapless());
            Thread.sleep(3_000);
            long killedAt = System.nanoTime();
            cluster.kill(victim);
            Thread.sleep(2_000);
            // Lighter load while the node rejoins: on 2 cores shared with two busy nodes and the clients, a joiner's
            // appliers would never catch up with the full load (a production node has cores of its own).
            workload.pauseBetweenOperations(Duration.ofMillis(50));
            inMemory.pauseBetweenOperations(Duration.ofMillis(20));
            long restartAt = System.nanoTime();
            cluster.restart(victim);
            rejoinMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restartAt);
            killedForMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            workload.pauseBetweenOperations(Duration.ofMillis(2));
            inMemory.pauseBetweenOperations(Duration.ofMillis(1));
            Thread.sleep(3_000);
        }
        for (Subject subject : subjects) {
            subject.flush();
        }
        String detail = String.format(
                "node %d killed -9 under load, down %d ms, rejoined by IST in %d ms under a " + "lighter load",
                victim, killedForMillis, rejoinMillis);
        for (Subject subject : subjects) {
            check(
                    subject,
                    "a node killed",
                    -1,
                    subject.name().startsWith("buffered")
                            ? CounterChecker.Reads.READ_YOUR_WRITES
                            : CounterChecker.Reads.LINEARIZABLE,
                    detail);
        }
        for (Map.Entry<String, Map<String, List<Long>>> sequence : Map.of(
                        "block sequence", blockNumbers, "gapless sequence", gaplessNumbers)
                .entrySet()) {
            SequenceChecker.Result result = SequenceChecker.check(sequence.getValue());
            ReliabilityReport.row(
                    "Galera: a node killed",
                    sequence.getKey(),
                    result.numbers()
                            + " numbers handed out to " + result.callers() + " callers through 3 nodes | " + detail
                            + " | "
                            + (result.valid() ? "no duplicates" : "VIOLATED"));
            assertThat(result.valid()).as(sequence.getKey() + " " + result).isTrue();
        }
    }

    /**
     * A bounded stock with escrow sold through all three nodes at once until it is sold out: nodes take allowances
     * from the pool row and give them back across nodes, and the pool row, written through every node, meets
     * certification conflicts, which are retried, never applied twice. The final value is exact, never below 0, and
     * no sale was refused while the stock surely had room for it.
     */
    @Test
    void aBoundedStockSoldThroughEveryNodeIsExactAndRefusedOnlyWhenSoldOut() throws Exception {
        String counter = "stock";
        long initial = 2_000_000;
        BoundedSettings settings = BoundedSettings.of(0L, null)
                .withInitial(initial)
                .withEscrowAbove(0)
                .withRefills(Duration.ofMillis(200), 4_096, 65_536);
        Retries retries = new Retries();
        History history = new History();
        UniqueDeltas deltas = UniqueDeltas.between(new Random(), 1, 1L << 13, false);
        AtomicLong attempted = new AtomicLong(); // units of the sales asked for and not refused so far
        AtomicLong refusals = new AtomicLong();
        List<String> wrongRefusals = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<CounterService> nodes = new ArrayList<>();
        long before = GaleraNodes.conflicts();
        try (Workload workload = new Workload()) {
            for (JooqCounterStore store : stores) {
                CounterService node = CounterService.builder(store)
                        .defaultStrategy(settings)
                        .retryRegistry(retries.registry)
                        .build();
                services.add(node);
                nodes.add(node);
                String session = "node" + nodes.size();
                workload.repeating(4, () -> {
                    long units = deltas.next();
                    attempted.addAndGet(units);
                    History.Add sale = history.invoke(session, counter, -units);
                    try {
                        if (node.tryIncrement(counter, -units)) {
                            history.complete(sale, History.Outcome.OK);
                            return;
                        }
                        history.complete(sale, History.Outcome.FAILED);
                        refusals.incrementAndGet();
                        // Every sale before the refusal was asked for by now: the stock then was at least this.
                        long surelyLeft = initial - attempted.addAndGet(-units);
                        if (units <= surelyLeft) {
                            wrongRefusals.add(units + " refused with at least " + surelyLeft + " left");
                        }
                    } catch (RuntimeException e) {
                        history.complete(sale, History.Outcome.of(e));
                    }
                });
                workload.repeating(1, () -> history.read(session, counter, () -> node.get(counter)));
            }
            workload.until(() -> refusals.get() >= 100, 120);
        }
        long conflicts = GaleraNodes.conflicts() - before;
        StrategyStatistics.EscrowActivity escrow = nodes.stream()
                .map(node -> node.statistics().get(0).activity().escrow())
                .reduce(BoundedCallers::sum)
                .orElseThrow();
        long finalValue = nodes.get(0).get(counter);
        CounterChecker.Result result = CounterChecker.checkBounded(history, counter, finalValue, initial, 0L, null);
        ReliabilityReport.row(
                "Galera: every node selling",
                "bounded, escrow",
                String.format(
                        "%d sales through 3 nodes (%d ok, %d refused, %d unknown), %d of %d units left, %d reads;"
                                + " %d refills of %d units, %d units given back, %d changes on the pool row; %d"
                                + " certification conflicts, %d retries after one | %s%s",
                        result.ok() + result.failed() + result.unknown(),
                        result.ok(),
                        result.failed(),
                        result.unknown(),
                        finalValue,
                        initial,
                        result.reads(),
                        escrow.refills(),
                        escrow.refilledUnits(),
                        escrow.givenBackUnits(),
                        escrow.poolChanges(),
                        conflicts,
                        retries.afterConflict.get(),
                        result.valid() ? "exact, never below 0" : "VIOLATED: " + result.problem(),
                        wrongRefusals.isEmpty() ? ", refused only when sold out" : ", REFUSED WITH ROOM"));
        assertThat(result.valid()).as(result.toString()).isTrue();
        assertThat(result.unknown()).as("sales of unknown outcome").isZero();
        assertThat(wrongRefusals)
                .as("sales refused while the stock surely had room")
                .isEmpty();
        assertThat(refusals.get()).as("sold out").isGreaterThanOrEqualTo(100);
        assertThat(escrow.refills()).as("allowances taken").isPositive();
        assertThat(escrow.poolChanges())
                .as("the last units sold through the pool row")
                .isPositive();
        assertThat(conflicts).as("certification conflicts on the pool row").isPositive();
    }

    private void check(Subject subject, String scenario, long conflicts, CounterChecker.Reads reads) {
        check(subject, scenario, conflicts, reads, "3 nodes, " + WRITERS_PER_NODE + " writers each");
    }

    private void check(Subject subject, String scenario, long conflicts, CounterChecker.Reads reads, String detail) {
        JooqCounterStore reader = GaleraNodes.storedAt(prefix);
        List<CounterChecker.Result> results =
                CounterChecker.checkAll(subject.history(), counter -> JooqStores.total(reader, counter), reads);
        History history = subject.history();
        long unknown =
                results.stream().mapToLong(CounterChecker.Result::unknown).sum();
        KeyedCallers keyed = subject.keyed();
        String retried = keyed != null
                ? String.format(
                        "unknown outcomes settled under the same key: %d by the keyed retry, %d by the "
                                + "callers' repeats",
                        keyed.retriedUnknown.get(), keyed.unknownOutcomes.get())
                : String.format(
                        "%d retries, %d of them after a certification conflict",
                        subject.retries().retries.get(),
                        subject.retries().afterConflict.get());
        boolean valid = results.stream().allMatch(CounterChecker.Result::valid) && (keyed == null || unknown == 0);
        ReliabilityReport.row(
                "Galera: " + scenario,
                subject.name(),
                String.format(
                        "%d increments (%d ok, %d refused, %d unknown of which %d applied), %d reads%s; %s | %s | %s",
                        results.stream()
                                .mapToLong(r -> r.ok() + r.failed() + r.unknown())
                                .sum(),
                        history.count(History.Outcome.OK),
                        history.count(History.Outcome.FAILED),
                        unknown,
                        results.stream()
                                .mapToLong(CounterChecker.Result::unknownApplied)
                                .sum(),
                        history.reads(),
                        conflicts >= 0 ? ", " + conflicts + " certification conflicts" : "",
                        retried,
                        detail,
                        valid ? "exact" : "VIOLATED"));
        assertThat(history.count(History.Outcome.OK))
                .as(subject.name() + ": acknowledged increments")
                .isPositive();
        assertThat(results)
                .as(subject.name())
                .allSatisfy(result -> assertThat(result.valid())
                        .as(subject.name() + " " + result + laterRead(subject, result, reader, reads))
                        .isTrue());
        if (keyed != null) {
            assertThat(unknown).as(subject.name() + ": increments left unknown").isZero();
        }
    }

    /**
     * For a counter found wrong: the check again a few seconds later, which tells a write stored late (the flushes
     * returned before it was stored) from one lost or applied twice.
     */
    private static String laterRead(
            Subject subject, CounterChecker.Result result, JooqCounterStore reader, CounterChecker.Reads reads) {
        if (result.valid()) {
            return "";
        }
        try {
            Thread.sleep(3_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        CounterChecker.Result later = CounterChecker.check(
                subject.history(), result.counter(), JooqStores.total(reader, result.counter()), reads);
        return "; read again 3 s later: " + later;
    }

    /**
     * {@code GET_LOCK} is node-local on Galera: a claim held that way would let two processes share a node id through
     * two nodes. The store detects Galera and node claims fall back to the replicated lease row.
     */
    @Test
    void twoProcessesClaimingOneNodeIdThroughTwoNodesNeverBothGetIt() throws Exception {
        for (int round = 0; round < 3; round++) {
            NodeSettings settings =
                    NodeSettings.defaults().withNodeId("app-" + round).withLeaseTtl(Duration.ofSeconds(30));
            JooqCounterStore first = stores.get(0);
            JooqCounterStore second = stores.get(1 + round % 2);
            List<CompletableFuture<CounterService>> starts = List.of(
                    CompletableFuture.supplyAsync(() -> CounterService.builder(first)
                            .defaultStrategy(settings)
                            .build()),
                    CompletableFuture.supplyAsync(() -> CounterService.builder(second)
                            .defaultStrategy(settings)
                            .build()));
            int started = 0;
            int refused = 0;
            for (CompletableFuture<CounterService> start : starts) {
                try {
                    services.add(start.get(60, TimeUnit.SECONDS));
                    started++;
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(NodeIdInUseException.class);
                    refused++;
                }
            }
            assertThat(started)
                    .as("processes running under node id app-" + round)
                    .isEqualTo(1);
            assertThat(refused).isEqualTo(1);
        }
        // Started one after the other, through different nodes, the second is refused too.
        NodeSettings settings = NodeSettings.defaults().withNodeId("app-late").withLeaseTtl(Duration.ofSeconds(30));
        services.add(
                CounterService.builder(stores.get(2)).defaultStrategy(settings).build());
        assertThatThrownBy(() -> CounterService.builder(stores.get(0))
                        .defaultStrategy(settings)
                        .build())
                .isInstanceOf(NodeIdInUseException.class);
        ReliabilityReport.row(
                "Galera: same node id",
                "node",
                "2 processes claiming one id through 2 nodes at once, "
                        + "3 times, and once one after the other: 1 ran, 1 refused, each time | exact");
    }

    /**
     * Inside a caller's transaction a conflict with another node surfaces at the caller's commit (or at its next
     * statement): the caller is told, and the library repeats nothing.
     */
    @Test
    void aConflictInsideACallersTransactionIsReportedNotRetried() throws Exception {
        ThreadLocal<Connection> current = new ThreadLocal<>();
        JooqCounterStore joining = JooqCounterStore.builder(pools.get(0))
                .tablePrefix(prefix)
                .callerTransactions(current::get)
                .build();
        Retries retries = new Retries();
        CounterService inTransaction = CounterService.builder(joining)
                .defaultStrategy(AtomicSettings.defaults())
                .retryRegistry(retries.registry)
                .build();
        CounterService otherNode = CounterService.builder(stores.get(1))
                .defaultStrategy(AtomicSettings.defaults())
                .build();
        services.add(inTransaction);
        services.add(otherNode);
        String counter = "joined.conflict";
        otherNode.increment(counter, 1);
        try (Connection connection = pools.get(0).getConnection()) {
            connection.setAutoCommit(false);
            current.set(connection);
            inTransaction.increment(counter, 10);
            otherNode.increment(counter, 100); // another node commits the same row first
            assertThatThrownBy(connection::commit)
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(isCertificationConflict(e))
                            .as(e.toString())
                            .isTrue());
            connection.rollback();
            connection.setAutoCommit(true);
        } finally {
            current.remove();
        }
        assertThat(retries.retries.get())
                .as("nothing repeated inside the caller's transaction")
                .isZero();
        assertThat(JooqStores.total(GaleraNodes.storedAt(prefix), counter))
                .as("the caller's 10 was not applied")
                .isEqualTo(101);
    }

    /** Two application instances starting at once on a fresh schema, through two nodes, both migrate it. */
    @Test
    void twoInstancesMigratingAFreshSchemaThroughTwoNodesAtOnceBothStart() throws Exception {
        String fresh =
                "m" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        List<CompletableFuture<JooqCounterStore>> starts = new ArrayList<>();
        for (int node = 0; node < 2; node++) {
            HikariDataSource pool = pools.get(node);
            starts.add(CompletableFuture.supplyAsync(() -> JooqCounterStore.builder(pool)
                    .tablePrefix(fresh)
                    .migrateSchema(true)
                    .build()));
        }
        for (CompletableFuture<JooqCounterStore> start : starts) {
            JooqCounterStore store = start.get(120, TimeUnit.SECONDS);
            store.checkSchema();
        }
        try (Connection connection = pools.get(2).getConnection();
                Statement statement = connection.createStatement();
                var rows = statement.executeQuery("select count(*), sum(success) from " + fresh
                        + "counters_schema_history where version is not null and version <> '0'")) {
            rows.next();
            assertThat(rows.getLong(1)).as("each migration recorded once").isEqualTo(rows.getLong(2));
        }
    }
}
