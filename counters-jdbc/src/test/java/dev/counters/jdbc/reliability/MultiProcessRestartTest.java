package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.testing.ChildJvm;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 13, the way users deploy: several application processes increment one counter on one database, and mid-run
 * one is killed with SIGKILL and replaced, and another is stopped gracefully and replaced. Every acknowledged increment
 * must be stored, and nothing beyond those and the ones whose outcome is unknown: acknowledged ≤ stored ≤ acknowledged
 * + unknown. Delta-log ids that repeated across processes lost acknowledged increments this way; the colliding cases
 * make ids repeat on purpose, to prove that a taken id or flush key is never taken as success.
 */
class MultiProcessRestartTest {

    private static final int THREADS = 4;
    private static final long PHASE_MILLIS = 2_000;

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of(TestDatabase.MARIADB, "delta-log"),
                Arguments.of(TestDatabase.POSTGRES, "delta-log"),
                // Each process remembers the row as its last write left it; the others' writes make that stale.
                Arguments.of(TestDatabase.MARIADB, "optimistic"),
                Arguments.of(TestDatabase.MARIADB, "delta-log-colliding"),
                Arguments.of(TestDatabase.MARIADB, "buffered-colliding"),
                Arguments.of(TestDatabase.POSTGRES, "buffered-colliding"));
    }

    /** A child process and the file its threads keep their tally in. */
    private record Node(ChildJvm jvm, Path tallyFile) {

        static Node start(TestDatabase database, String prefix, String counter, String strategy) throws Exception {
            Path tally = Files.createTempFile("counters-tally-", ".bin");
            ChildJvm jvm = ChildJvm.start(
                    ChildTallyIncrementer.class,
                    database.jdbcUrl(),
                    database.user(),
                    database.password(),
                    prefix,
                    counter,
                    String.valueOf(THREADS),
                    strategy,
                    tally.toString());
            jvm.awaitOutput("READY", 2, TimeUnit.MINUTES);
            return new Node(jvm, tally);
        }

        void kill() throws InterruptedException {
            jvm.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        /** SIGTERM: the shutdown hook closes the service, which writes what is pending. */
        void stop() throws Exception {
            jvm.process().destroy();
            assertThat(jvm.process().waitFor(60, TimeUnit.SECONDS))
                    .as("stopped in time")
                    .isTrue();
        }

        /** Per thread: acknowledged, unknown, in flight. */
        long[] tally() throws Exception {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(tallyFile));
            long[] sums = new long[ChildTallyIncrementer.SLOT];
            for (int thread = 0; thread < THREADS; thread++) {
                for (int i = 0; i < sums.length; i++) {
                    sums[i] += bytes.getLong((thread * sums.length + i) * Long.BYTES);
                }
            }
            return sums;
        }
    }

    @ParameterizedTest(name = "{1} on {0}")
    @MethodSource("cases")
    void processesRestartedMidRunLoseAndDoubleCountNothing(TestDatabase database, String strategy) throws Exception {
        JooqStores stores = JooqStores.on(database);
        String counter = "restarts." + strategy + "." + System.nanoTime();
        List<Node> nodes = new ArrayList<>();
        Node steady = Node.start(database, stores.prefix(), counter, strategy);
        Node killed = Node.start(database, stores.prefix(), counter, strategy);
        nodes.addAll(List.of(steady, killed));
        Thread.sleep(PHASE_MILLIS);
        killed.kill();
        Node restartedAfterKill = Node.start(database, stores.prefix(), counter, strategy);
        nodes.add(restartedAfterKill);
        Thread.sleep(PHASE_MILLIS);
        restartedAfterKill.stop();
        Node restartedAfterStop = Node.start(database, stores.prefix(), counter, strategy);
        nodes.add(restartedAfterStop);
        Thread.sleep(PHASE_MILLIS);
        steady.stop();
        restartedAfterStop.stop();

        long acknowledged = 0;
        long unknown = 0;
        for (Node node : nodes) {
            long[] tally = node.tally();
            acknowledged += tally[0];
            unknown += tally[1] + tally[2];
        }
        long stored = JooqStores.total(stores.store(), counter);
        boolean exact = stored >= acknowledged && stored <= acknowledged + unknown;
        ReliabilityReport.row(
                "processes restarted mid-run",
                strategy + " on " + database,
                String.format(
                        "4 processes x %d threads, one killed -9 and replaced, one stopped and replaced: %d acknowledged, %d "
                                + "unknown, %d stored | %s",
                        THREADS, acknowledged, unknown, stored, exact ? "exact" : "VIOLATED"));
        assertThat(acknowledged).as("work was done").isGreaterThan(200);
        assertThat(stored)
                .as("acknowledged ≤ stored ≤ acknowledged + unknown")
                .isBetween(acknowledged, acknowledged + unknown);
    }
}
