package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterOverflowException;
import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad input, through every strategy and sequences, on the real database: each gives an exception whose message names
 * the problem, and nothing reaches the tables.
 */
class BadInputTest {

    private static final HikariDataSource direct = FaultyMariaDb.direct();

    /** Bad names and the part of the message that must name the problem. */
    static Stream<Arguments> badNames() {
        return Stream.of(
                Arguments.of("empty", "", "must not be empty"),
                Arguments.of("10 kB", "x".repeat(10_240), "is 10240 characters long; at most 128"),
                Arguments.of("NUL", "a\u0000b", "contains U+0000 at index 1"),
                Arguments.of("newline", "page\nviews", "contains U+000A at index 4"),
                Arguments.of("escape", "a\u001b[31m", "contains U+001B at index 1"),
                Arguments.of("SQL quote", "x'; DROP TABLE counters; --", "contains ''' at index 1"),
                Arguments.of("SQL wildcard", "views%", "contains '%' at index 5"),
                Arguments.of("space", "page views", "contains ' ' at index 4"),
                Arguments.of("non-BMP emoji", "likes\uD83D\uDC4D", "contains U+D83D at index 5"),
                Arguments.of("lone surrogate", "a\uDC00", "contains U+DC00 at index 1"),
                Arguments.of("null", null, "must not be null"));
    }

    static Stream<Arguments> strategies() {
        return Stream.of(
                Arguments.of("atomic", AtomicSettings.defaults()),
                Arguments.of("optimistic", OptimisticSettings.defaults()),
                Arguments.of("sharded", ShardedSettings.defaults()),
                Arguments.of("node", NodeSettings.defaults()),
                Arguments.of("buffered", BufferedSettings.defaults()),
                Arguments.of("delta-log", DeltaLogSettings.defaults()),
                Arguments.of("monotonic", MonotonicSettings.defaults()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("strategies")
    void badNamesAreRefusedByEveryOperationAndNothingIsWritten(String strategy, StrategySettings factory)
            throws Exception {
        String prefix = FaultyMariaDb.freshSchema();
        JooqCounterStore store = FaultyMariaDb.storedAt(prefix);
        List<String> refused = new ArrayList<>();
        try (CounterService counters =
                        CounterService.builder(store).defaultStrategy(factory).build();
                SequenceService sequences = SequenceService.builder(store).build()) {
            for (Arguments row : badNames().toList()) {
                String name = (String) row.get()[1];
                String problem = (String) row.get()[2];
                Map<String, ThrowingCallable> operations = Map.of(
                        "increment", () -> counters.increment(name, 1),
                        "incrementAndGet", () -> counters.incrementAndGet(name, 1),
                        "incrementDurably", () -> counters.incrementDurably(name, 1),
                        "get", () -> counters.get(name),
                        "get(names)", () -> counters.get(java.util.Arrays.asList("ok", name)),
                        "counter", () -> counters.counter(name),
                        "delete", () -> counters.delete(name),
                        "sequence next", () -> sequences.next(name));
                operations.forEach((operation, call) -> {
                    assertThatThrownBy(call)
                            .as("%s of %s", operation, row.get()[0])
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining(problem);
                    refused.add(operation);
                });
            }
            counters.flush().get(10, TimeUnit.SECONDS);
        }
        assertNothingWritten(prefix);
        ReliabilityReport.row(
                "bad input",
                strategy,
                refused.size() + " calls with 11 kinds of bad name refused, "
                        + "each naming the problem; tables empty | ok");
    }

    /** Bad deltas: zero everywhere, negative where the strategy allows no decrements. */
    static Stream<Arguments> badDeltas() {
        return Stream.of(
                Arguments.of("atomic", AtomicSettings.defaults(), 0L, "must not be 0"),
                Arguments.of("buffered", BufferedSettings.defaults(), 0L, "must not be 0"),
                Arguments.of("delta-log", DeltaLogSettings.defaults(), 0L, "must not be 0"),
                Arguments.of(
                        "node (G-Counter)",
                        NodeSettings.defaults().withDecrements(false),
                        -1L,
                        "is a grow-only node counter (G-Counter): delta -1 is refused"),
                Arguments.of(
                        "monotonic", MonotonicSettings.defaults(), -5L, "is monotonic: delta must be > 0, was -5"));
    }

    @ParameterizedTest(name = "{0}, delta {2}")
    @MethodSource("badDeltas")
    void badDeltasAreRefusedAndNothingIsWritten(String strategy, StrategySettings factory, long delta, String problem)
            throws Exception {
        String prefix = FaultyMariaDb.freshSchema();
        JooqCounterStore store = FaultyMariaDb.storedAt(prefix);
        try (CounterService counters =
                CounterService.builder(store).defaultStrategy(factory).build()) {
            for (ThrowingCallable call : List.<ThrowingCallable>of(
                    () -> counters.increment("c", delta),
                    () -> counters.incrementAndGet("c", delta),
                    () -> counters.incrementDurably("c", delta),
                    () -> counters.counter("c").increment(delta))) {
                assertThatThrownBy(call)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(problem);
            }
            counters.flush().get(10, TimeUnit.SECONDS);
        }
        assertNothingWritten(prefix);
    }

    /**
     * Strategies that keep a counter in one row refuse the write; those that split it find out when reading. Durable
     * buffered flushes into one of three rows (issue 38): refused when its flush adds to the row that holds the value,
     * else found out when reading.
     */
    static Stream<Arguments> overflows() {
        return Stream.of(
                Arguments.of("atomic", AtomicSettings.defaults(), true),
                Arguments.of("optimistic", OptimisticSettings.defaults(), true),
                Arguments.of("node", NodeSettings.defaults(), true),
                Arguments.of("buffered", BufferedSettings.defaults(), false),
                Arguments.of("monotonic", MonotonicSettings.defaults(), true),
                Arguments.of("sharded", ShardedSettings.defaults(), false),
                Arguments.of("delta-log", DeltaLogSettings.defaults(), false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("overflows")
    void anIncrementPastTheLongRangeIsRefusedOrReportedNeverWrappedAround(
            String strategy, StrategySettings factory, boolean refusedWhenWritten) throws Throwable {
        String prefix = FaultyMariaDb.freshSchema();
        JooqCounterStore store = FaultyMariaDb.storedAt(prefix);
        // Shards in turn, not at random: the two sharded increments below must land on two rows (1 run in 16 they
        // shared one, and the write was refused, as it should be).
        RandomGenerator inTurn = new RandomGenerator() {
            private final AtomicInteger next = new AtomicInteger();

            @Override
            public long nextLong() {
                return next.getAndIncrement();
            }

            @Override
            public int nextInt(int bound) {
                return Math.floorMod(next.getAndIncrement(), bound);
            }
        };
        try (CounterService counters = CounterService.builder(store)
                .random(inTurn)
                .defaultStrategy(factory)
                .build()) {
            counters.incrementDurably("big", Long.MAX_VALUE - 10).get(10, TimeUnit.SECONDS);
            ThrowingCallable durably = () -> {
                try {
                    // Buffered increments are checked when written: the durable form reports the refusal.
                    counters.incrementDurably("big", 11).get(10, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    throw e.getCause();
                }
            };
            if (refusedWhenWritten) {
                assertThatThrownBy(durably)
                        .isInstanceOf(CounterOverflowException.class)
                        .hasMessageContaining("Adding 11 to counter 'big' would take it past Long.MAX_VALUE");
                if (!strategy.equals("buffered")) {
                    assertThatThrownBy(() -> counters.increment("big", Long.MAX_VALUE))
                            .isInstanceOf(CounterOverflowException.class)
                            .hasMessageContaining("'big'");
                }
                counters.flush().get(10, TimeUnit.SECONDS);
                assertThat(counters.getExact("big")).isEqualTo(Long.MAX_VALUE - 10);
            } else {
                // Each row stays in range, so the write goes through; the total is refused, never wrapped around.
                try {
                    durably.call();
                } catch (CounterOverflowException refused) {
                    assertThat(strategy)
                            .as("only buffered may find the same row")
                            .isEqualTo("buffered");
                    assertThat(counters.getExact("big")).isEqualTo(Long.MAX_VALUE - 10);
                    ReliabilityReport.row(
                            "bad input",
                            strategy,
                            "an increment past Long.MAX_VALUE: refused (same row), value unchanged");
                    return;
                }
                assertThatThrownBy(() -> counters.getExact("big"))
                        .isInstanceOf(CounterOverflowException.class)
                        .hasMessageContaining("counter 'big'")
                        .hasMessageContaining("outside the 64-bit range");
            }
        }
        ReliabilityReport.row(
                "bad input",
                strategy,
                "an increment past Long.MAX_VALUE: "
                        + (refusedWhenWritten
                                ? "refused, value unchanged"
                                : "written to its own row; reading the total fails naming the counter"));
    }

    @Test
    void badSettingsAreRefusedWhenBuilt() {
        Map<ThrowingCallable, String> settings = Map.ofEntries(
                Map.entry(() -> ShardedSettings.defaults().withShards(-1), "shards must be"),
                Map.entry(
                        () -> BufferedSettings.defaults().withMaxPendingCounters(-1),
                        "buffered max-pending-counters must be >= 1, was -1"),
                Map.entry(() -> BufferedSettings.defaults().withFlushThreshold(0), "flush-threshold must be >= 1"),
                Map.entry(
                        () -> BufferedSettings.defaults().withFlushLanes(0),
                        "buffered flush-lanes must be between 1 and 16, was 0"),
                Map.entry(
                        () -> BufferedSettings.defaults().withFlushInterval(Duration.ofSeconds(-1)),
                        "flush-interval must be positive"),
                Map.entry(() -> MonotonicSettings.defaults().withChanceToWrite(1.5), "chance-to-write"),
                Map.entry(() -> OptimisticSettings.defaults().withMaxAttempts(-3), "max-attempts"),
                Map.entry(() -> DeltaLogSettings.defaults().withRecountAtDeltas(-1), "recount-at-deltas"),
                Map.entry(() -> SequenceSettings.defaults().withBlockSize(-5), "block-size must be >= 1, was -5"),
                Map.entry(() -> NodeSettings.defaults().withNodeId("a b"), "Node id 'a b' is invalid"),
                Map.entry(() -> JooqCounterStore.builder(direct).tablePrefix("x; DROP"), "Table prefix"));
        settings.forEach((call, problem) -> assertThatThrownBy(call)
                .as(problem)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(problem));
        ReliabilityReport.row("bad input", "settings", settings.size() + " invalid settings refused when built | ok");
    }

    private static void assertNothingWritten(String prefix) throws Exception {
        try (Connection connection = direct.getConnection();
                Statement statement = connection.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery("SELECT table_name FROM information_schema.tables WHERE "
                    + "table_schema = DATABASE() AND table_name LIKE '" + prefix + "%'")) {
                while (rows.next()) {
                    tables.add(rows.getString(1));
                }
            }
            assertThat(tables).hasSizeGreaterThan(4);
            for (String table : tables) {
                if (table.endsWith("schema_history") || table.endsWith("leases")) {
                    continue; // Flyway's record, and the node strategy's claim on its id
                }
                try (ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + table)) {
                    rows.next();
                    assertThat(rows.getLong(1)).as("rows in %s", table).isZero();
                }
            }
        }
    }
}
