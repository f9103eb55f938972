package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.testing.AdmissionLog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * A process of {@link RateLimitProcesses}: opens the limiter on the tables the parent made, waits for the go file,
 * then takes permits of one hot key from several threads until the deadline the go file holds (epoch milliseconds),
 * logging each admission ({@link AdmissionLog}: it outlives a {@code kill -9}). Arguments: workload database jdbcUrl
 * user password tables permits periodMillis threads logFile goFile.
 */
public final class RateLimitChild {

    private RateLimitChild() {}

    public static void main(String[] args) throws Exception {
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
        RateLimitWorkload.Kind kind = RateLimitReport.kind(args[0]);
        BenchDatabase database = BenchDatabase.valueOf(args[1]);
        RateLimitWorkload.Limit limit = new RateLimitWorkload.Limit(
                Long.parseLong(args[6]), java.time.Duration.ofMillis(Long.parseLong(args[7])));
        int threads = Integer.parseInt(args[8]);
        AdmissionLog log = AdmissionLog.create(Path.of(args[9]), 1 << 20);
        Path go = Path.of(args[10]);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[2]);
        config.setUsername(args[3]);
        config.setPassword(args[4]);
        config.setMaximumPoolSize(threads + 2);
        LongAdder refused = new LongAdder();
        LongAdder errors = new LongAdder();
        try (HikariDataSource pool = new HikariDataSource(config);
                RateLimitWorkload limiter = kind.opener().open(pool, database, limit, args[5], false)) {
            System.out.println("READY");
            System.out.flush();
            long waitUntil = System.currentTimeMillis() + 120_000;
            while (!Files.exists(go) && System.currentTimeMillis() < waitUntil) {
                Thread.sleep(1);
            }
            long deadline = Long.parseLong(Files.readString(go).strip());
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(Thread.ofPlatform().start(() -> {
                    while (System.currentTimeMillis() < deadline) {
                        long start = AdmissionLog.micros();
                        try {
                            if (limiter.tryAcquire("hot")) {
                                log.admitted(start);
                            } else {
                                refused.increment();
                            }
                        } catch (Exception e) {
                            errors.increment();
                        }
                    }
                }));
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        System.out.println("DONE admitted=" + log.count() + " refused=" + refused.sum() + " errors=" + errors.sum());
    }
}
