package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.history.SequenceChecker;
import dev.counters.jdbc.ChildBufferedIncrementer;
import dev.counters.jdbc.ChildSequenceDrawer;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.MariaDbProcess;
import dev.counters.testing.ChildJvm;
import java.io.DataInputStream;
import java.io.EOFException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Application processes die with SIGKILL mid-run or start together: each is a child JVM on the suite's MariaDB
 * server. Processes sharing a node id are in {@link NodeClaimTest}.
 */
class ClientCrashTest {

    private static final MariaDbProcess server = FaultyMariaDb.server();
    private static final HikariDataSource direct = FaultyMariaDb.direct();

    private static ChildJvm child(Class<?> main, String prefix, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(server.jdbcUrl(), EmbeddedMariaDb.USER, "", prefix));
        args.addAll(List.of(more));
        return ChildJvm.start(main, args.toArray(String[]::new));
    }

    private static long last(String output, String pattern) {
        Matcher matcher = Pattern.compile(pattern).matcher(output);
        long last = 0;
        while (matcher.find()) {
            last = Long.parseLong(matcher.group(1));
        }
        return last;
    }

    @Test
    void aKilledBufferedProcessLosesAtMostWhatWasPendingSinceItsLastAcknowledgedFlush() throws Exception {
        String prefix = FaultyMariaDb.freshSchema();
        String counter = "crash" + System.nanoTime();
        ChildJvm child = child(ChildBufferedIncrementer.class, prefix, counter);
        child.awaitOutput("DURABLE 20000", 2, TimeUnit.MINUTES);
        Thread.sleep(ThreadLocalRandom.current().nextInt(50, 500));
        child.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: no shutdown hook runs

        long acknowledged = last(child.output(), "DURABLE (\\d+)");
        long stored = JooqStores.total(FaultyMariaDb.storedAt(prefix), counter);
        ReliabilityReport.row(
                "client killed",
                "buffered",
                String.format(
                        "%d increments acknowledged durable "
                                + "before the kill, %d stored; bound: durable ≤ stored ≤ durable + 1,000 | %s",
                        acknowledged,
                        stored,
                        stored >= acknowledged && stored <= acknowledged + 1_000 ? "within bound" : "VIOLATED"));
        // After its last acknowledgement the child made at most 999 plain increments and one durable one.
        assertThat(stored).isBetween(acknowledged, acknowledged + 1_000);
    }

    @Test
    void aKilledProcessLeavesNoNumberToBeHandedOutAgain() throws Exception {
        String prefix = FaultyMariaDb.freshSchema();
        Path numbers = Files.createTempDirectory("counters-numbers-");
        String[] drawer = {"orders", "4", "100000000", "50", numbers.toString()};
        ChildJvm first = child(ChildSequenceDrawer.class, prefix, drawer);
        ChildJvm second = child(ChildSequenceDrawer.class, prefix, drawer);
        first.awaitOutput("READY", 2, TimeUnit.MINUTES);
        second.awaitOutput("READY", 2, TimeUnit.MINUTES);
        Thread.sleep(1_500);
        first.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        ChildJvm restarted = child(ChildSequenceDrawer.class, prefix, drawer);
        restarted.awaitOutput("READY", 2, TimeUnit.MINUTES);
        Thread.sleep(1_500);
        second.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        restarted.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);

        Map<String, List<Long>> byCaller = new HashMap<>();
        try (Stream<Path> files = Files.list(numbers)) {
            for (Path file : files.toList()) {
                byCaller.put(file.getFileName().toString(), readNumbers(file));
            }
        }
        SequenceChecker.Result result = SequenceChecker.check(byCaller);
        ReliabilityReport.row(
                "client killed",
                "block sequence",
                String.format(
                        "3 processes, 2 killed -9 mid-run, "
                                + "1 started after the first kill: %d numbers to %d threads | %s",
                        result.numbers(), result.callers(), result.valid() ? "no duplicates" : "VIOLATED"));
        assertThat(result.valid()).as(result.toString()).isTrue();
        assertThat(result.callers()).isEqualTo(12);
        assertThat(result.numbers()).isGreaterThan(10_000);
    }

    /** The numbers a killed drawer wrote; a record cut short by the kill is dropped. */
    private static List<Long> readNumbers(Path file) throws Exception {
        List<Long> numbers = new ArrayList<>();
        try (DataInputStream in = new DataInputStream(Files.newInputStream(file))) {
            while (true) {
                numbers.add(in.readLong());
            }
        } catch (EOFException e) {
            return numbers;
        }
    }

    @Test
    void twoProcessesInitialisingTheSchemaAtOnceBothSucceedAndMigrateOnce() throws Exception {
        String prefix = "s" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        String counter = "schema" + System.nanoTime();
        String startAt = Long.toString(System.currentTimeMillis() + 4_000);
        ChildJvm first = child(ChildSchemaInitializer.class, prefix, counter, startAt);
        ChildJvm second = child(ChildSchemaInitializer.class, prefix, counter, startAt);
        first.awaitSuccess(2, TimeUnit.MINUTES);
        second.awaitSuccess(2, TimeUnit.MINUTES);

        long stored = JooqStores.total(FaultyMariaDb.storedAt(prefix), counter);
        Map<String, Integer> applied = new HashMap<>();
        try (Connection connection = direct.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT version, COUNT(*) FROM " + prefix
                        + "counters_schema_history WHERE success = 1 AND version IS NOT NULL GROUP BY version")) {
            while (rows.next()) {
                applied.put(rows.getString(1), rows.getInt(2));
            }
        }
        ReliabilityReport.row(
                "concurrent schema initialisation",
                "2 processes",
                String.format(
                        "both started, %d migrations each applied once, counter %d of 200 | %s",
                        applied.size(),
                        stored,
                        stored == 200 && applied.values().stream().allMatch(n -> n == 1) ? "ok" : "VIOLATED"));
        assertThat(stored).isEqualTo(200);
        assertThat(applied)
                .isNotEmpty()
                .allSatisfy((version, times) -> assertThat(times).isEqualTo(1));
    }
}
