package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;
import dev.counters.spi.DatabaseClock;
import dev.counters.testing.AdmissionLog;
import dev.counters.testing.AdmissionLog.Admission;
import dev.counters.testing.Admissions;
import dev.counters.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, the way a deployment runs: four application processes take permits of one hot key from a GCRA limiter
 * and a fixed-window limiter on one database; one is killed with {@code kill -9} mid-run, whatever it had in flight, and
 * started again. Every admission is logged by the process that got it, with its span from before the call to after it
 * returned; together they never pass the documented bound: GCRA at most {@code permits + burst - 1} in any span of its
 * period, the fixed window at most its permits in each window. Every process decides on the machine's clock, on which
 * the admissions are logged (see {@link #service}). The run is seeded ({@code -Dcounters.seed}): which
 * process is killed, when, and the order each thread calls the limiters in.
 */
class MultiProcessRateLimitTest {

    static final String GCRA = "mp.gcra";
    static final String WINDOW = "mp.window";
    static final String KEY = "hot";
    /** 50 a second, 10 at once: one permit every 20 ms, at most 59 in any second. */
    static final RateLimit GCRA_LIMIT = RateLimit.of(50, Duration.ofSeconds(1)).withBurst(10);
    /** 40 in each second of the epoch. */
    static final RateLimit WINDOW_LIMIT =
            RateLimit.of(40, Duration.ofSeconds(1)).withAlgorithm(RateLimit.Algorithm.FIXED_WINDOW);

    private static final int PROCESSES = 4;
    private static final int THREADS = 3;
    private static final Duration RUN = Duration.ofSeconds(15);
    private static final Pattern DONE = Pattern.compile("DONE refused=(\\d+) failed=(\\d+)");

    /**
     * How far a process's steady time may drift from the wall clock over the run: its ticker ({@code nanoTime})
     * against the wall clock it was anchored on at start.
     */
    private static final long DRIFT_MICROS = 10_000;

    /**
     * The service every process runs: both limiters by rule, failing closed. Its store hides the database's clock, so
     * that the limiters decide on the machine's clock (steady time anchored on it at start), on which the admissions are
     * logged too: the check then needs no allowance for a clock read over a round trip, only {@link #DRIFT_MICROS}.
     */
    static CounterService service(JooqCounterStore store) {
        CounterStore onTheMachinesClock = new ForwardingCounterStore(store) {
            @Override
            public <T> Optional<T> capability(Class<T> capability) {
                return capability == DatabaseClock.class ? Optional.empty() : super.capability(capability);
            }
        };
        return CounterService.builder(onTheMachinesClock)
                .rateLimit(GCRA, RateLimitRule.of(GCRA_LIMIT))
                .rateLimit(WINDOW, RateLimitRule.of(WINDOW_LIMIT))
                .build();
    }

    @Test
    void fourProcessesOneKilledNeverAdmitMoreThanTheBound() throws Exception {
        long seed = Long.getLong("counters.seed", 35);
        Random random = new Random(seed);
        TestDatabase database = TestDatabase.MARIADB;
        JooqStores stores = JooqStores.on(database); // migrated tables of the test's own prefix
        Path directory = Files.createTempDirectory("counters-ratelimit-");
        Path go = directory.resolve("go");
        List<Path[]> logs = new ArrayList<>();
        List<ChildJvm> processes = new ArrayList<>();
        for (int i = 0; i < PROCESSES; i++) {
            processes.add(start(database, stores.prefix(), directory, "p" + i, go, seed + i, logs));
        }
        for (ChildJvm process : processes) {
            process.awaitOutput("READY", 2, TimeUnit.MINUTES);
        }
        long started = System.currentTimeMillis();
        Path next = directory.resolve("go.next");
        Files.writeString(next, Long.toString(started + RUN.toMillis()));
        Files.move(next, go, StandardCopyOption.ATOMIC_MOVE);

        Thread.sleep(4_000 + random.nextInt(4_000));
        int victim = random.nextInt(PROCESSES);
        ChildJvm killed = processes.get(victim);
        assertThat(killed.process().isAlive()).as("killed while deciding").isTrue();
        killed.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: kill -9
        ChildJvm restarted = start(database, stores.prefix(), directory, "restarted", go, seed + PROCESSES, logs);
        long refused = 0;
        long failed = 0;
        for (ChildJvm process : processes) {
            if (process != killed) {
                long[] counts = counts(process.awaitSuccess(2, TimeUnit.MINUTES));
                refused += counts[0];
                failed += counts[1];
            }
        }
        long[] counts = counts(restarted.awaitSuccess(2, TimeUnit.MINUTES));
        refused += counts[0];
        failed += counts[1];

        List<Admission> gcra = new ArrayList<>();
        List<Admission> window = new ArrayList<>();
        for (Path[] log : logs) {
            gcra.addAll(AdmissionLog.read(log[0]));
            window.addAll(AdmissionLog.read(log[1]));
        }
        long period = GCRA_LIMIT.period().toNanos() / 1_000;
        long mostGcra = Admissions.mostInAnyPeriod(gcra, period, DRIFT_MICROS);
        long mostWindow = Admissions.mostInAWindow(window, period, DRIFT_MICROS);
        long gcraBound = GCRA_LIMIT.permits() + GCRA_LIMIT.burst() - 1;
        String run = String.format(
                "seed %d, process %d killed: GCRA %d admitted, at most %d in a second (bound %d); fixed window %d"
                        + " admitted, at most %d in a window (bound %d); %d refused, %d failed",
                seed,
                victim,
                gcra.size(),
                mostGcra,
                gcraBound,
                window.size(),
                mostWindow,
                WINDOW_LIMIT.permits(),
                refused,
                failed);
        ReliabilityReport.row(
                "4 processes on one hot key, one killed -9 and restarted",
                "rate limits (GCRA, fixed window) on " + database,
                run + " | "
                        + (mostGcra <= gcraBound && mostWindow <= WINDOW_LIMIT.permits()
                                ? "within bounds"
                                : "VIOLATED"));
        long refusals = refused;
        SoftAssertions.assertSoftly(softly -> {
            softly.assertThat(mostGcra).as("GCRA within its bound: " + run).isLessThanOrEqualTo(gcraBound);
            softly.assertThat(mostWindow)
                    .as("fixed window within its bound: " + run)
                    .isLessThanOrEqualTo(WINDOW_LIMIT.permits());
            // Not vacuous: each limiter was pushed past its limit and admitted about its rate.
            softly.assertThat(refusals).as("refusals: " + run).isPositive();
            long seconds = RUN.toSeconds();
            softly.assertThat((long) gcra.size())
                    .as("GCRA admitted: " + run)
                    .isGreaterThan(GCRA_LIMIT.permits() * seconds / 2);
            softly.assertThat((long) window.size())
                    .as("window admitted: " + run)
                    .isGreaterThan(WINDOW_LIMIT.permits() * seconds / 2);
            softly.assertThat(mostGcra)
                    .as("GCRA reached its limit: " + run)
                    .isGreaterThanOrEqualTo(GCRA_LIMIT.permits() / 2);
            softly.assertThat(mostWindow)
                    .as("window reached its limit: " + run)
                    .isGreaterThanOrEqualTo(WINDOW_LIMIT.permits() / 2);
        });
        assertThat(AdmissionLog.read(logs.get(victim)[0]))
                .as("the killed process was admitted before it died")
                .isNotEmpty();
    }

    private static ChildJvm start(
            TestDatabase database, String prefix, Path directory, String name, Path go, long seed, List<Path[]> logs)
            throws Exception {
        Path[] log = {directory.resolve(name + "-gcra"), directory.resolve(name + "-window")};
        logs.add(log);
        return ChildJvm.start(
                ChildRateLimiter.class,
                database.jdbcUrl(),
                database.user(),
                database.password(),
                prefix,
                log[0].toString(),
                log[1].toString(),
                go.toString(),
                Long.toString(seed),
                Integer.toString(THREADS));
    }

    /** Refused and failed decisions, from a process's last line. */
    private static long[] counts(String output) {
        Matcher done = DONE.matcher(output);
        assertThat(done.find())
                .as("a process ended without its DONE line:\n" + output)
                .isTrue();
        return new long[] {Long.parseLong(done.group(1)), Long.parseLong(done.group(2))};
    }
}
