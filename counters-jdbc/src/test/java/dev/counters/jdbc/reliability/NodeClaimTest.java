package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.testing.ChildJvm;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Processes that share a node id, on the databases whose claim is a session lock: two started together never run
 * together, and a process killed with SIGKILL is replaced under its id at once, not after the lease TTL (60 s here).
 */
class NodeClaimTest {

    private static final String LEASE_TTL_SECONDS = "60";

    private static ChildJvm node(TestDatabase database, String prefix, String counter, String nodeId) throws Exception {
        return ChildJvm.start(
                ChildNodeIncrementer.class,
                database.jdbcUrl(),
                database.user(),
                database.password(),
                prefix,
                counter,
                nodeId,
                LEASE_TTL_SECONDS);
    }

    private static long lastAck(String output) {
        Matcher matcher = Pattern.compile("ACK (\\d+)").matcher(output);
        long last = 0;
        while (matcher.find()) {
            last = Long.parseLong(matcher.group(1));
        }
        return last;
    }

    @ParameterizedTest
    @EnumSource(
            value = TestDatabase.class,
            names = {"MARIADB", "POSTGRES"})
    void twoProcessesWithOneNodeIdNeverRunTogetherAndAKilledOneIsReplacedAtOnce(TestDatabase database)
            throws Exception {
        JooqStores stores = JooqStores.on(database);
        String counter = "node" + System.nanoTime();
        String nodeId = "node-" + UUID.randomUUID().toString().substring(0, 8);
        ChildJvm first = node(database, stores.prefix(), counter, nodeId);
        ChildJvm second = node(database, stores.prefix(), counter, nodeId);
        // Exactly one of two processes started together gets the id; the other refuses to start.
        ChildJvm winner = awaitEither(first, second);
        ChildJvm loser = winner == first ? second : first;
        assertThat(loser.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(loser.process().exitValue()).as(loser.output()).isEqualTo(2);
        assertThat(loser.output()).contains("NODE ID IN USE");

        winner.awaitOutput("ACK 500", 1, TimeUnit.MINUTES);
        winner.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: nothing released the claim
        long before = lastAck(winner.output());
        long killedAt = System.nanoTime();
        ChildJvm replacement = node(database, stores.prefix(), counter, nodeId);
        replacement.awaitOutput("ACK 500", 1, TimeUnit.MINUTES);
        long replacedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        replacement.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        long after = lastAck(replacement.output());
        long stored = JooqStores.total(stores.store(), counter);
        boolean exact = stored >= before + after && stored <= before + after + 2;
        ReliabilityReport.row(
                "same node id",
                "node on " + database,
                String.format(
                        "2 processes started together: 1 "
                                + "ran, 1 refused; winner killed -9 after %d increments; replacement started at once (500 increments "
                                + "%d ms after the kill, lease TTL %s s) and ran %d; stored %d, bound: acknowledged ≤ stored ≤ "
                                + "acknowledged + 2 | %s",
                        before, replacedAfterMillis, LEASE_TTL_SECONDS, after, stored, exact ? "exact" : "VIOLATED"));
        assertThat(replacement.output()).contains("STARTED").doesNotContain("NODE ID IN USE");
        // Each killed process may have had one increment in flight: committed or not, nobody knows.
        assertThat(stored).isBetween(before + after, before + after + 2);
    }

    private static ChildJvm awaitEither(ChildJvm first, ChildJvm second) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (System.nanoTime() < deadline) {
            if (first.output().contains("STARTED")) {
                return first;
            }
            if (second.output().contains("STARTED")) {
                return second;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("Neither process started:\n" + first.output() + "\n" + second.output());
    }
}
