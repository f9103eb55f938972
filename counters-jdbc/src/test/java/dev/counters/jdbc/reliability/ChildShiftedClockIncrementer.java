package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.testing.TestThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * An application process of {@link ShiftedClocksTest}, run under libfaketime with its clock shifted: increments the
 * test's windowed and delta-log counters from two threads for a while, then prints each increment's outcome as
 * {@code OP <counter> <delta> <OK|FAILED|UNKNOWN>}. Arguments: jdbcUrl user password tablePrefix seconds seed
 * keyRetentionMinutes (1: this process does the housekeeping every 6 s).
 */
public final class ChildShiftedClockIncrementer {

    private ChildShiftedClockIncrementer() {}

    public static void main(String[] args) throws InterruptedException {
        long seconds = Long.parseLong(args[4]);
        long seed = Long.parseLong(args[5]);
        Duration keyRetention = Duration.ofMinutes(Long.parseLong(args[6]));
        System.out.println("CLOCK " + java.time.Instant.now());
        HikariDataSource dataSource = ChildPool.of(args, 6);
        History history = new History();
        java.util.Queue<String> lines = new java.util.concurrent.ConcurrentLinkedQueue<>();
        ShiftedClocksTest.Recorder recorder = (counter, delta, increment) -> {
            History.Outcome outcome = history.add(counter, delta, increment);
            lines.add("OP " + counter + " " + delta + " " + outcome);
            return outcome;
        };
        try (CounterService counters = ShiftedClocksTest.service(
                JooqCounterStore.builder(dataSource).tablePrefix(args[3]).build(),
                java.time.Clock.systemUTC(),
                keyRetention)) {
            System.out.println("READY");
            System.out.flush();
            UniqueDeltas deltas = ShiftedClocksTest.deltas(seed);
            Random random = new Random(seed);
            long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long threadSeed = random.nextLong();
                threads.add(TestThreads.start(
                        () -> ShiftedClocksTest.work(counters, recorder, deltas, new Random(threadSeed), deadline)));
            }
            for (Thread thread : threads) {
                thread.join();
            }
        }
        dataSource.close();
        System.out.print(String.join("\n", lines) + "\n");
        System.out.println("DONE");
        System.out.flush();
    }
}
