package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.BoundedCounter;
import dev.counters.BoundedState;
import dev.counters.CounterService;
import dev.counters.IdempotencyKey;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.testing.ChildJvm;
import dev.counters.testing.TestThreads;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 34, the way a shop deploys: four application processes sell one bounded stock (min 0) on one database, with
 * checkouts that hold, confirm, release or abandon units, while the stock is restocked; one process is killed with
 * {@code kill -9} mid-run and restarted under its node id. No state the database shows is ever below 0, every unit is
 * sold once the run ends and the allowances and holds came back, and units sold + units left + units held = initial
 * stock + restocks, within the changes whose outcome is unknown.
 */
class MultiProcessSellOutTest {

    private static final int THREADS = 4;
    private static final long INITIAL = 20_000;
    private static final long RESTOCK = 2_000;
    private static final int RESTOCKS = 3;

    static Stream<Arguments> databases() {
        return Stream.of(Arguments.of(TestDatabase.MARIADB), Arguments.of(TestDatabase.POSTGRES));
    }

    /** A child process and the file its threads keep their tally in. */
    private record Seller(ChildJvm jvm, Path tallyFile) {

        static Seller start(TestDatabase database, String prefix, String counter, String nodeId, Path go)
                throws Exception {
            Path tally = Files.createTempFile("counters-sold-", ".bin");
            ChildJvm jvm = ChildJvm.start(
                    ChildBoundedSeller.class,
                    database.jdbcUrl(),
                    database.user(),
                    database.password(),
                    prefix,
                    counter,
                    String.valueOf(THREADS),
                    nodeId,
                    String.valueOf(INITIAL),
                    tally.toString(),
                    go.toString());
            jvm.awaitOutput("READY", 2, TimeUnit.MINUTES);
            return new Seller(jvm, tally);
        }

        void kill() throws InterruptedException {
            jvm.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }

        /** Summed over the threads: sold, unknown (an unknown outcome, or in flight when killed). */
        long[] tally() throws Exception {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(tallyFile));
            long sold = 0;
            long unknown = 0;
            for (int thread = 0; thread < THREADS; thread++) {
                int at = thread * ChildBoundedSeller.SLOT * Long.BYTES;
                sold += bytes.getLong(at);
                unknown += bytes.getLong(at + Long.BYTES) + bytes.getLong(at + 2 * Long.BYTES);
            }
            return new long[] {sold, unknown};
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void fourProcessesOneKilledSellTheStockExactlyAndNeverBelowZero(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.on(database);
        String counter = "sellout." + System.nanoTime();
        try (CounterService counters = CounterService.builder(stores.store())
                .strategy(counter, ChildBoundedSeller.settings("observer", INITIAL))
                .build()) {
            BoundedCounter stock = counters.bounded(counter);
            // The observer: every state the database shows, read in one statement each.
            AtomicBoolean selling = new AtomicBoolean(true);
            AtomicLong lowest = new AtomicLong(Long.MAX_VALUE);
            AtomicLong reads = new AtomicLong();
            Thread observer = TestThreads.start(() -> {
                while (selling.get()) {
                    long value = JooqStores.total(stores.store(), counter);
                    lowest.accumulateAndGet(value, Math::min);
                    reads.incrementAndGet();
                }
            });

            // The sellers start together once all are ready: the go file.
            Path go = Files.createTempDirectory("counters-sellout-").resolve("go");
            List<Seller> sellers = new ArrayList<>();
            for (int i = 1; i <= 4; i++) {
                sellers.add(Seller.start(database, stores.prefix(), counter, "seller-" + i, go));
            }
            Files.createFile(go);
            long restocked = 0;
            long restocksUnknown = 0;
            // Killed once it has sold a few hundred units, by its tally: mid-sale, however fast the database.
            Seller killed = sellers.get(2);
            await().atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(2))
                    .until(() -> killed.tally()[0] >= 300);
            assertThat(killed.jvm().process().isAlive())
                    .as("killed while selling")
                    .isTrue();
            killed.kill(); // with its allowance, its holds, and whatever it had in flight
            for (int i = 0; i < RESTOCKS; i++) {
                if (i == 1) {
                    sellers.add(Seller.start(database, stores.prefix(), counter, "seller-3", go));
                }
                if (stock.tryIncrement(RESTOCK, IdempotencyKey.of(counter + "-restock-" + i))) {
                    restocked += RESTOCK;
                } else {
                    restocksUnknown += RESTOCK;
                }
            }
            for (Seller seller : sellers) {
                if (seller != sellers.get(2)) {
                    seller.jvm().awaitSuccess(5, TimeUnit.MINUTES);
                }
            }
            // Abandoned holds and the killed process's allowance come back; then the last units are sold here.
            await().atMost(Duration.ofSeconds(30)).until(() -> stock.state().heldTowardMin() == 0);
            long soldHere = 0;
            while (stock.tryIncrement(-1)) {
                soldHere++;
            }
            selling.set(false);
            observer.join();

            long sold = soldHere;
            long unknown = 0;
            for (Seller seller : sellers) {
                long[] tally = seller.tally();
                sold += tally[0];
                unknown += tally[1];
            }
            BoundedState state = stock.state();
            long changed = INITIAL + restocked - state.value() - state.heldTowardMin();
            ReliabilityReport.row(
                    "a bounded stock sold out by 4 processes, one killed -9 and restarted",
                    "bounded on " + database,
                    String.format(
                            "%d + %d restocked: %d sold acknowledged, %d unknown, %d left, %d held, lowest value seen"
                                    + " %d in %d reads | %s",
                            INITIAL,
                            restocked,
                            sold,
                            unknown,
                            state.value(),
                            state.heldTowardMin(),
                            lowest.get(),
                            reads.get(),
                            lowest.get() >= 0 && state.value() == 0 && changed >= sold && changed <= sold + unknown
                                    ? "exact, never below 0"
                                    : "VIOLATED"));
            assertThat(restocksUnknown).as("restocks are keyed: each answered").isZero();
            assertThat(reads.get()).as("the observer read").isGreaterThan(100);
            assertThat(lowest.get()).as("no state below the minimum").isNotNegative();
            assertThat(state.value()).as("every unit sold").isZero();
            assertThat(state.heldTowardMin()).as("no hold left").isZero();
            assertThat(state.allowances().values())
                    .as("every allowance given back or empty")
                    .allSatisfy(allowance -> assertThat(allowance.towardMin()).isZero());
            assertThat(changed)
                    .as("sold + left + held = initial + restocks, within the unknown outcomes")
                    .isBetween(sold, sold + unknown);
            assertThat(sold).as("work was done").isGreaterThan(INITIAL / 2);
        }
    }
}
