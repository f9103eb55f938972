package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.RateDecision;
import dev.counters.RateLimiter;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.testing.AdmissionLog;
import dev.counters.testing.TestThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * An application process of {@link MultiProcessRateLimitTest}: takes permits of one hot key from both of the test's
 * limiters, in a seeded random order, from several threads, until the deadline the go file holds (epoch
 * milliseconds), and logs every admission with its span in a file per limiter ({@link AdmissionLog}: it outlives a
 * {@code kill -9}). Prints its refusals and failed decisions at the end. Arguments: jdbcUrl user password tablePrefix
 * gcraLog windowLog goFile seed threads.
 */
public final class ChildRateLimiter {

    private ChildRateLimiter() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[8]);
        long seed = Long.parseLong(args[7]);
        Path go = Path.of(args[6]);
        List<AdmissionLog> logs =
                List.of(AdmissionLog.create(Path.of(args[4]), 1 << 16), AdmissionLog.create(Path.of(args[5]), 1 << 16));
        LongAdder refused = new LongAdder();
        LongAdder failed = new LongAdder();
        try (HikariDataSource dataSource = ChildPool.of(args, threads + 4);
                CounterService counters = MultiProcessRateLimitTest.service(JooqCounterStore.builder(dataSource)
                        .tablePrefix(args[3])
                        .build())) {
            List<RateLimiter> limiters = List.of(
                    counters.rateLimiter(MultiProcessRateLimitTest.GCRA),
                    counters.rateLimiter(MultiProcessRateLimitTest.WINDOW));
            System.out.println("READY");
            System.out.flush();
            long waitUntil = System.currentTimeMillis() + 120_000;
            while (!Files.exists(go) && System.currentTimeMillis() < waitUntil) {
                Thread.sleep(1);
            }
            long deadline = Long.parseLong(Files.readString(go).strip());
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed * 31 + t);
                workers.add(TestThreads.start(() -> {
                    while (System.currentTimeMillis() < deadline) {
                        int which = random.nextInt(2);
                        long start = AdmissionLog.micros();
                        RateDecision decision = limiters.get(which).tryAcquire(MultiProcessRateLimitTest.KEY);
                        switch (decision.outcome()) {
                            case ALLOWED -> logs.get(which).admitted(start);
                            case REFUSED -> {
                                refused.increment();
                                // A short seeded pause: a refused client does not spin on the machine's cores.
                                LockSupport.parkNanos(random.nextInt(500_000));
                            }
                            case FAIL_OPEN, FAIL_CLOSED -> failed.increment();
                        }
                    }
                }));
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        System.out.println("DONE refused=" + refused.sum() + " failed=" + failed.sum());
    }
}
