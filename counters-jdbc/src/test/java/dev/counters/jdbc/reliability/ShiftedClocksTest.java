package dev.counters.jdbc.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.WindowSettings;
import dev.counters.history.CounterChecker;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.MySqlFaultProxy;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Processes whose clocks are shifted against each other and against the database's (libfaketime in two child JVMs):
 * one hours ahead, which does the housekeeping every few seconds, one minutes behind, beyond delta-log's folded
 * retention, and this JVM on time, writing the same windowed and delta-log counters to one MariaDB, some through a
 * proxy that cuts commit replies. Every acknowledged increment must be kept, none counted twice: the purges go by the
 * database's clock.
 */
class ShiftedClocksTest {

    /** Where Debian's libfaketime package puts the library, on amd64 or arm64. */
    static final List<Path> LIBFAKETIME = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
            Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"));

    static final List<String> COUNTERS = List.of("win.a", "win.b", "dl.a", "dl.b");
    private static final long SECONDS = 12;

    /** How every process of the test configures its service. */
    static CounterService service(CounterStore store, Clock clock, Duration keyRetention) {
        return CounterService.builder(store)
                .clock(clock)
                .keyRetention(keyRetention)
                // 1-second windows kept an hour: a clock up to 30 minutes behind the database's may still write them
                .windows("win.*", WindowSettings.of(Duration.ofSeconds(1)).withRetention(Duration.ofHours(1)))
                .strategy("dl.*", DeltaLogSettings.defaults().withRecountAtDeltas(5))
                .build();
    }

    static UniqueDeltas deltas(long seed) {
        return UniqueDeltas.between(new Random(seed), 1, 1L << 30, false);
    }

    /** Records an increment's outcome, as {@link History#add(String, long, Runnable)} does. */
    @FunctionalInterface
    interface Recorder {
        History.Outcome add(String counter, long delta, Runnable increment);
    }

    static void work(CounterService counters, Recorder recorder, UniqueDeltas deltas, Random random, long deadline) {
        while (System.nanoTime() < deadline) {
            String counter = COUNTERS.get(random.nextInt(COUNTERS.size()));
            long delta = deltas.next();
            recorder.add(counter, delta, () -> counters.increment(counter, delta));
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Test
    void processesWithClocksHoursAheadAndMinutesBehindKeepEveryAcknowledgedIncrementOnce() throws Exception {
        assertThat(LIBFAKETIME)
                .as("libfaketime: install Debian's faketime package (./test does)")
                .anyMatch(Files::exists);
        long seed = ThreadLocalRandom.current().nextLong();
        Random random = new Random(seed);
        // Beyond the windows' hour of retention ahead; beyond delta-log's 10 minutes of folded retention behind.
        long aheadMinutes = 70 + random.nextInt(50);
        long behindMinutes = 11 + random.nextInt(15);
        String prefix = FaultyMariaDb.freshSchema();
        History history = new History();
        try (MySqlFaultProxy proxy = FaultyMariaDb.proxy(seed);
                HikariDataSource pool = FaultyMariaDb.pool(proxy.port(), 6)) {
            proxy.inject(0.03, 0.02, 0, 40);
            ChildJvm ahead = child(FaultyMariaDb.server().port(), prefix, "+" + aheadMinutes + "m", seed + 1, 1);
            ChildJvm behind = child(proxy.port(), prefix, "-" + behindMinutes + "m", seed + 2, 24 * 60);
            ahead.awaitOutput("READY", 3, TimeUnit.MINUTES);
            behind.awaitOutput("READY", 3, TimeUnit.MINUTES);
            try (CounterService onTime = service(
                    JooqCounterStore.builder(pool).tablePrefix(prefix).build(),
                    Clock.systemUTC(),
                    Duration.ofDays(1))) {
                work(onTime, history::add, deltas(seed), random, System.nanoTime() + TimeUnit.SECONDS.toNanos(SECONDS));
            }
            String aheadOutput = ahead.awaitSuccess(2, TimeUnit.MINUTES);
            String behindOutput = behind.awaitSuccess(2, TimeUnit.MINUTES);
            proxy.stopInjecting();
            assertShifted(aheadOutput, Duration.ofMinutes(aheadMinutes));
            assertShifted(behindOutput, Duration.ofMinutes(-behindMinutes));
            record(history, aheadOutput);
            record(history, behindOutput);
            JooqCounterStore reader = FaultyMariaDb.storedAt(prefix);
            List<CounterChecker.Result> results = CounterChecker.checkAll(history, counter -> stored(reader, counter));
            ReliabilityReport.row(
                    "shifted clocks",
                    "windowed (atomic) and delta-log",
                    "three processes: one "
                            + aheadMinutes + " min ahead (the housekeeper, every 6 s), one " + behindMinutes
                            + " min behind,"
                            + " one on time; " + history.count(History.Outcome.OK) + " increments, " + proxy.injected()
                            + " faults | "
                            + (results.stream().allMatch(CounterChecker.Result::valid)
                                    ? "exact"
                                    : "VIOLATED: " + results));
            assertThat(results)
                    .allSatisfy(result -> assertThat(result.valid())
                            .as("seed " + seed + ": " + result)
                            .isTrue());
            assertThat(history.count(History.Outcome.OK)).isPositive();
        }
    }

    private static ChildJvm child(int port, String prefix, String shift, long seed, long keyRetentionMinutes)
            throws Exception {
        String url = FaultyMariaDb.server().jdbcUrl(port) + "&connectTimeout=" + FaultyMariaDb.CONNECTION_TIMEOUT_MILLIS
                + "&socketTimeout=" + FaultyMariaDb.SOCKET_TIMEOUT_MILLIS;
        Path libfaketime =
                LIBFAKETIME.stream().filter(Files::exists).findFirst().orElseThrow();
        return ChildJvm.start(
                Map.of("LD_PRELOAD", libfaketime.toString(), "FAKETIME", shift, "FAKETIME_DONT_FAKE_MONOTONIC", "1"),
                ChildShiftedClockIncrementer.class,
                url,
                EmbeddedMariaDb.USER,
                "",
                prefix,
                String.valueOf(SECONDS),
                String.valueOf(seed),
                String.valueOf(keyRetentionMinutes));
    }

    /** The child printed its clock at start: it must be shifted as asked, or faketime did not take. */
    private static void assertShifted(String output, Duration shift) {
        Matcher clock = Pattern.compile("CLOCK (\\S+)").matcher(output);
        assertThat(clock.find()).as(output).isTrue();
        Duration off = Duration.between(Instant.now(), Instant.parse(clock.group(1)));
        assertThat(off).as("the child's clock").isBetween(shift.minusMinutes(2), shift.plusMinutes(1));
    }

    private static void record(History history, String output) {
        Matcher op = Pattern.compile("OP (\\S+) (\\d+) (OK|FAILED|UNKNOWN)").matcher(output);
        int ops = 0;
        while (op.find()) {
            history.complete(
                    history.invoke(op.group(1), Long.parseLong(op.group(2))), History.Outcome.valueOf(op.group(3)));
            ops++;
        }
        assertThat(ops).as(output).isPositive();
    }

    /** A delta-log counter's cells and unfolded deltas; a windowed counter's windows, summed. */
    private static long stored(JooqCounterStore reader, String counter) {
        if (!counter.startsWith("win.")) {
            return JooqStores.total(reader, counter);
        }
        long sum = 0;
        CounterName after = null;
        while (true) {
            List<CounterName> page = reader.counterNames(counter + ":w:", after, 1_000);
            for (CounterName window : page) {
                sum += reader.get(window);
            }
            if (page.size() < 1_000) {
                return sum;
            }
            after = page.get(page.size() - 1);
        }
    }
}
