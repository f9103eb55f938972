package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.history.CounterChecker;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.MySqlFaultProxy;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.StrategySettings;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Callers that believe "not applied" ({@link BelievingCallers}) under ambiguous commits, each withheld commit reply
 * followed by a short outage, as when a server goes down with the reply: the attempt after the ambiguous one, and a
 * read after a write that just committed, find no connection ({@code StoreUnavailableException}, "not applied").
 * Whatever the library calls "not applied" must not be stored: the checker counts an over-count as a violation.
 * Issue 31 found keyed increments (a later attempt's "not applied" replaced the first one's unknown outcome) and
 * {@code incrementAndGet} of delta-log and buffered (the read after the increment failed) saying it of stored
 * increments.
 */
class BelievedFailuresTest {

    /** Withheld commit replies, each followed by an outage longer than the pool's wait for a connection. */
    private static final int FAULTS = 8;

    private static final Duration OUTAGE = Duration.ofMillis(400);
    private static final int CONNECTION_TIMEOUT_MILLIS = 250;
    private static final int NODES = 2;
    private static final int WRITERS_PER_NODE = 4;
    private static final int COUNTERS = 32;

    static Stream<Arguments> callers() {
        return Stream.of(
                Arguments.of("atomic", "keyed", AtomicSettings.defaults()),
                Arguments.of("delta-log", "keyed", DeltaLogSettings.defaults()),
                Arguments.of(
                        "delta-log",
                        "incrementAndGet",
                        DeltaLogSettings.defaults().withRecountAtDeltas(100)),
                Arguments.of(
                        "buffered",
                        "incrementAndGet",
                        BufferedSettings.defaults().withFlushInterval(Duration.ofMillis(5))));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("callers")
    void whatTheLibraryCallsNotAppliedIsNotStored(String strategy, String call, StrategySettings factory)
            throws Exception {
        String prefix = FaultyMariaDb.freshSchema();
        long seed = ThreadLocalRandom.current().nextLong();
        History history = new History();
        boolean buffered = strategy.equals("buffered");
        List<String> counters = Workload.names("believed." + strategy + ".", COUNTERS);
        UniqueDeltas deltas = buffered
                ? UniqueDeltas.between(new Random(seed), 1, 1L << 31, false)
                : UniqueDeltas.large(new Random(seed));
        BelievingCallers callers = new BelievingCallers();
        try (MySqlFaultProxy proxy = FaultyMariaDb.proxy(seed);
                HikariDataSource pool = FaultyMariaDb.pool(proxy.port(), 4 * NODES, CONNECTION_TIMEOUT_MILLIS)) {
            awaitFirstConnection(pool); // the pool's short wait is for outages, not for its first connection
            JooqCounterStore store =
                    JooqCounterStore.builder(pool).tablePrefix(prefix).build();
            List<CounterService> nodes = new ArrayList<>();
            for (int n = 0; n < NODES; n++) {
                nodes.add(CounterService.builder(store).defaultStrategy(factory).build());
            }
            proxy.outageAfterCommitReplyCut(OUTAGE);
            proxy.inject(0.02, 0, 0, FAULTS);
            long started = System.nanoTime();
            Workload workload = new Workload();
            if (buffered) {
                workload.pauseBetweenOperations(Duration.ofMillis(1));
            }
            for (CounterService node : nodes) {
                workload.increments(
                        node,
                        call.equals("keyed") ? callers.keyed(node) : callers.incrementAndGet(node),
                        history,
                        counters,
                        deltas,
                        WRITERS_PER_NODE);
            }
            workload.until(() -> proxy.exhausted() && !proxy.refusing(), 60).close();
            proxy.stopInjecting();
            nodes.forEach(CounterService::close);
            long seconds = (System.nanoTime() - started) / 1_000_000_000;

            JooqCounterStore reader = FaultyMariaDb.storedAt(prefix);
            List<CounterChecker.Result> results = CounterChecker.checkAll(
                    history,
                    counter -> JooqStores.total(reader, counter),
                    buffered ? CounterChecker.Reads.READ_YOUR_WRITES : CounterChecker.Reads.LINEARIZABLE);
            long unknown =
                    results.stream().mapToLong(CounterChecker.Result::unknown).sum();
            long unknownApplied = results.stream()
                    .mapToLong(CounterChecker.Result::unknownApplied)
                    .sum();
            long violated = results.stream().filter(result -> !result.valid()).count();
            ReliabilityReport.row(
                    "callers that believe \"not applied\"",
                    strategy + ", " + call,
                    String.format(
                            "%d increments (%d ok, %d failed and not repeated, %d unknown of which %d applied; %d unknown"
                                    + " outcomes repeated under their key), %d reads, %d s | %d replies to a commit withheld,"
                                    + " each followed by a %d ms outage | %s",
                            history.count(History.Outcome.OK) + history.count(History.Outcome.FAILED) + unknown,
                            history.count(History.Outcome.OK),
                            history.count(History.Outcome.FAILED),
                            unknown,
                            unknownApplied,
                            callers.repeatedUnknown.get(),
                            history.reads(),
                            seconds,
                            proxy.commitRepliesCut.get(),
                            OUTAGE.toMillis(),
                            violated == 0 ? "exact" : "VIOLATED on " + violated + " of " + COUNTERS + " counters"));
            assertThat(results)
                    .as("seed %d", seed)
                    .allSatisfy(result ->
                            assertThat(result.valid()).as(result.toString()).isTrue());
            assertThat(proxy.commitRepliesCut.get()).as("ambiguous commits").isGreaterThanOrEqualTo(FAULTS);
            assertThat(history.count(History.Outcome.FAILED) + unknown)
                    .as("calls the faults reached")
                    .isPositive();
            if (!buffered) { // a buffered increment is taken whatever the database does
                assertThat(callers.believed.get())
                        .as("failures the callers believed and did not repeat")
                        .isPositive();
            }
        }
    }

    private static void awaitFirstConnection(HikariDataSource pool) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                pool.getConnection().close();
                return;
            } catch (SQLException e) {
                if (attempt == 40) {
                    throw new IllegalStateException("No connection through the proxy", e);
                }
            }
        }
    }
}
