package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterName;
import dev.counters.history.CounterChecker;
import dev.counters.history.History;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Issue 36, the way a deployment runs: four application processes ({@link ChildMemberToggler}) add and remove the same
 * few members of one hot membership counter on MariaDB, each on a cell of its own, three threads each; one is killed
 * with {@code kill -9} mid-run, whatever it had in flight. Each process prints every call as it is invoked and as it
 * completes, with the results it was given, and its reads of a member and of the count. From those lines the history
 * checker ({@link CounterChecker}) sees each member as a counter of 0 or 1 and the count as one more: a change reported
 * as changing membership is a delta of +1 or -1, acknowledged; one reported as changing nothing is none; a call whose
 * outcome is unknown (the killed process's in flight) offers its changes as maybe applied. The final membership of every
 * member and the final count must be what the acknowledged deltas plus some subset of the unknown ones give, every read
 * in range, and the count the number of member rows. Seeded ({@code -Dcounters.seed}): which process is killed, when,
 * and each thread's changes.
 */
class MultiProcessMembersTest {

    static final String COUNTER = "mp.likes";
    static final int MEMBERS = 10;

    private static final int PROCESSES = 4;
    private static final int THREADS = 3;
    private static final Duration RUN = Duration.ofSeconds(10);

    static String member(int i) {
        return "user-" + i;
    }

    @Test
    void fourProcessesOneKilledKeepTheCountTheNumberOfMembersAndEveryAcknowledgedChangeAppliedOnce() throws Exception {
        long seed = Long.getLong("counters.seed", 36);
        Random random = new Random(seed);
        TestDatabase database = TestDatabase.MARIADB;
        JooqStores stores = JooqStores.on(database); // migrated tables of the test's own prefix
        Path directory = Files.createTempDirectory("counters-members-");
        Path go = directory.resolve("go");
        List<ChildJvm> processes = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            processes.add(ChildJvm.start(
                    ChildMemberToggler.class,
                    database.jdbcUrl(),
                    database.user(),
                    database.password(),
                    stores.prefix(),
                    go.toString(),
                    Long.toString(seed + i),
                    Integer.toString(THREADS),
                    "p" + i));
        }
        for (ChildJvm process : processes) {
            process.awaitOutput("READY", 2, TimeUnit.MINUTES);
        }
        Path next = directory.resolve("go.next");
        Files.writeString(next, Long.toString(System.currentTimeMillis() + RUN.toMillis()));
        Files.move(next, go, StandardCopyOption.ATOMIC_MOVE);

        int victim = random.nextInt(PROCESSES);
        ChildJvm killed = processes.get(victim);
        killed.awaitOutput("C\tp" + victim + "\t", 1, TimeUnit.MINUTES); // it completed calls before it dies
        Thread.sleep(1_000 + random.nextInt(3_000));
        assertThat(killed.process().isAlive())
                .as("killed while changing members")
                .isTrue();
        killed.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: kill -9
        List<String> outputs = new ArrayList<>();
        for (ChildJvm process : processes) {
            outputs.add(process == killed ? process.output() : process.awaitSuccess(2, TimeUnit.MINUTES));
        }

        Calls calls = new Calls();
        outputs.forEach(calls::parse);
        History history = History.timedBy(System::nanoTime);
        history.merge(calls.history());
        JooqCounterStore store = stores.store();
        CounterName hot = CounterName.of(COUNTER);
        List<String> rows = rows(store, hot);
        long count = store.get(hot);
        List<CounterChecker.Result> results = new ArrayList<>();
        for (int i = 0; i < MEMBERS; i++) {
            results.add(CounterChecker.check(history, member(i), rows.contains(member(i)) ? 1 : 0));
        }
        results.add(CounterChecker.check(history, "count", count));
        String run = String.format(
                "seed %d, process %d killed: %d calls, %d changes acknowledged as changing membership, %d as not,"
                        + " %d calls unknown, %d failed, %d reads; count %d, %d member rows; calls completed %s",
                seed,
                victim,
                calls.invoked,
                calls.changed,
                calls.unchanged,
                calls.unknown,
                calls.failed,
                history.reads(),
                count,
                rows.size(),
                calls.completed);
        boolean valid = results.stream().allMatch(CounterChecker.Result::valid) && count == rows.size();
        ReliabilityReport.row(
                "4 processes toggling the same members of one hot counter, one killed -9",
                "membership counter (store) on " + database,
                run + " | " + (valid ? "valid" : "INVALID"));
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(count)
                    .as("the count is the number of members: " + run)
                    .isEqualTo(rows.size());
            for (CounterChecker.Result result : results) {
                softly.assertThat(result.valid()).as(result + "; " + run).isTrue();
            }
            softly.assertThat(calls.unknown)
                    .as("unknown outcomes: at most the killed process's calls in flight: " + run)
                    .isLessThanOrEqualTo(THREADS);
            // Not vacuous: the processes raced on the members, and the killed one had made calls.
            softly.assertThat(calls.changed).as(run).isGreaterThan(100);
            softly.assertThat(calls.unchanged).as(run).isGreaterThan(100);
            softly.assertThat(calls.completedBy("p" + victim)).as(run).isPositive();
        });
    }

    /** Every member row of the counter, paged through. */
    private static List<String> rows(JooqCounterStore store, CounterName counter) {
        List<String> rows = new ArrayList<>();
        for (List<String> page = store.members(counter, null, 3);
                !page.isEmpty();
                page = store.members(counter, page.get(page.size() - 1), 3)) {
            rows.addAll(page);
        }
        return rows;
    }

    /**
     * The processes' lines, tab-separated: {@code I session id invokedAt user-1+,user-2-} as a call is invoked,
     * {@code C session id completedAt tf|FAILED|UNKNOWN} as it completes, {@code R session subject invokedAt completedAt
     * value} for a read; turned into the lines of {@link History#merge}.
     */
    private static final class Calls {

        private final Map<String, String[]> invocations = new HashMap<>();
        private final Map<String, String[]> completions = new HashMap<>();
        private final List<String> reads = new ArrayList<>();
        private final Map<String, Integer> completed = new HashMap<>();
        int invoked;
        int changed;
        int unchanged;
        int unknown;
        int failed;

        void parse(String output) {
            // A killed process's last line may be cut short: only whole lines count.
            String whole = output.substring(0, output.lastIndexOf('\n') + 1);
            for (String line : whole.split("\n")) {
                String[] f = line.split("\t");
                switch (f[0]) {
                    case "I" -> invocations.put(f[1] + "/" + f[2], f);
                    case "C" -> completions.put(f[1] + "/" + f[2], f);
                    case "R" -> reads.add(String.join("\t", "read", f[1], f[2], f[3], f[4], f[5]));
                    default -> {} // READY, DONE, the library's log
                }
            }
        }

        int completedBy(String session) {
            return completed.getOrDefault(session, 0);
        }

        List<String> history() {
            List<String> lines = new ArrayList<>(reads);
            invocations.forEach((id, call) -> {
                invoked++;
                String[] completion = completions.get(id);
                String outcome = completion == null ? "UNKNOWN" : completion[4];
                String completedAt = completion == null ? Long.toString(Long.MAX_VALUE) : completion[3];
                if (completion != null) {
                    completed.merge(call[1], 1, Integer::sum);
                }
                if (outcome.equals("UNKNOWN")) {
                    unknown++;
                } else if (outcome.equals("FAILED")) {
                    failed++;
                }
                String[] changes = call[4].split(",");
                for (int i = 0; i < changes.length; i++) {
                    String member = changes[i].substring(0, changes[i].length() - 1);
                    String delta = changes[i].endsWith("+") ? "1" : "-1";
                    String result;
                    if (outcome.equals("UNKNOWN") || outcome.equals("FAILED")) {
                        result = outcome;
                    } else if (outcome.charAt(i) == 't') {
                        result = "OK";
                        changed++;
                    } else {
                        unchanged++;
                        continue; // acknowledged as changing nothing: no delta
                    }
                    for (String counter : List.of(member, "count")) {
                        lines.add(String.join("\t", "add", call[1], counter, delta, call[3], completedAt, result));
                    }
                }
            });
            return lines;
        }
    }
}
