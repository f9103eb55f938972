package dev.counters.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.contract.Concurrently;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The second JVM of the multi-process tests: increments one counter from several threads through its own
 * connection pool and store, then prints how many increments were acknowledged.
 * Arguments: jdbcUrl user password tablePrefix counter threads incrementsPerThread.
 */
public final class ChildIncrementer {

    private ChildIncrementer() {
    }

    public static void main(String[] args) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword(args[2]);
        int threads = Integer.parseInt(args[5]);
        int perThread = Integer.parseInt(args[6]);
        config.setMaximumPoolSize(threads);
        AtomicLong acknowledged = new AtomicLong();
        try (HikariDataSource dataSource = new HikariDataSource(config);
                CounterService counters = CounterService.builder(
                        JooqCounterStore.builder(dataSource).tablePrefix(args[3]).build()).build()) {
            System.out.println("READY");
            System.out.flush();
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    counters.increment(args[4]);
                    acknowledged.incrementAndGet();
                }
            });
        }
        System.out.println("ACKNOWLEDGED " + acknowledged.get());
    }
}
