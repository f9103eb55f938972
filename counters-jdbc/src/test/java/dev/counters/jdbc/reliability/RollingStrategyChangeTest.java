package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.history.CounterChecker;
import dev.counters.history.History;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A rolling change of strategy (issue 31, item 13): two processes on the old configuration and two on the new write
 * the same counters at once on MariaDB, for every ordered pair of counting strategies (30 changes, in the same four
 * processes: see {@link ChildRollingIncrementer}); the old ones stop first, as in a rolling deployment. Every history
 * must check: the final value, once every process closed gracefully, is exactly the acknowledged deltas, and every
 * read (a get, or the value incrementAndGet returned) is within its strategy's bound: linearizable, or, where
 * {@code buffered} is one side, what its own process had acknowledged (another process's buffer is not read).
 */
class RollingStrategyChangeTest {

    private static final long OLD_SECONDS = 15;
    private static final long NEW_SECONDS = 20;

    @Test
    void twoOldAndTwoNewProcessesWritingTheSameCountersAreExactForEveryChange() throws Exception {
        TestDatabase database = TestDatabase.MARIADB;
        JooqStores stores = JooqStores.on(database);
        List<ChildJvm> children = new ArrayList<>();
        List<Path> histories = new ArrayList<>();
        for (String side : List.of("old", "old", "new", "new")) {
            if (side.equals("new") && children.size() == 2) {
                for (ChildJvm old : children) {
                    old.awaitOutput("READY", 2, TimeUnit.MINUTES); // the new processes start while the old run
                }
            }
            Path history = Files.createTempFile("counters-rolling-" + side + "-", ".tsv");
            histories.add(history);
            children.add(ChildJvm.start(
                    ChildRollingIncrementer.class,
                    database.jdbcUrl(),
                    database.user(),
                    database.password(),
                    stores.prefix(),
                    side,
                    String.valueOf(side.equals("old") ? OLD_SECONDS : NEW_SECONDS),
                    history.toString()));
        }
        History history = History.timedBy(System::nanoTime);
        for (int i = 0; i < children.size(); i++) {
            String printed = children.get(i).awaitSuccess(3, TimeUnit.MINUTES);
            System.out.print("[rolling] "
                    + printed.lines()
                            .filter(line -> line.startsWith("DONE"))
                            .findFirst()
                            .orElse(printed));
            System.out.println();
            history.merge(Files.readAllLines(histories.get(i)));
        }

        List<CounterChecker.Result> invalid = new ArrayList<>();
        long reads = 0;
        for (String counter : ChildRollingIncrementer.counters()) {
            String[] change = counter.split("\\.");
            boolean buffered = change[1].equals("buffered") || change[2].equals("buffered");
            CounterChecker.Result result = CounterChecker.check(
                    history,
                    counter,
                    stores.store().get(CounterName.of(counter)),
                    buffered ? CounterChecker.Reads.READ_YOUR_WRITES : CounterChecker.Reads.LINEARIZABLE);
            assertThat(result.ok())
                    .as("%s written by the old and the new processes", counter)
                    .isGreaterThan(10);
            reads += result.reads();
            if (!result.valid()) {
                invalid.add(result);
            }
        }
        ReliabilityReport.row(
                "rolling strategy change",
                "30 changes between counting strategies",
                String.format(
                        "2 old + 2 new processes on MariaDB, %d counters: %d increments acknowledged, %d refused"
                                + " (optimistic contention), %d unknown, %d reads checked | %s",
                        ChildRollingIncrementer.counters().size(),
                        history.count(History.Outcome.OK),
                        history.count(History.Outcome.FAILED),
                        history.count(History.Outcome.UNKNOWN),
                        reads,
                        invalid.isEmpty() ? "all exact" : invalid.size() + " INVALID"));
        assertThat(invalid).as("histories that do not check").isEmpty();
    }
}
