package dev.counters.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.strategy.BufferedSettings;
import java.time.Duration;

/**
 * The process the crash test kills: increments one buffered counter as fast as it can, and after every 1,000th
 * increment waits for a durable one, printing how many increments are acknowledged as durable by then.
 * Arguments: jdbcUrl user password tablePrefix counter.
 */
public final class ChildBufferedIncrementer {

    private ChildBufferedIncrementer() {}

    public static void main(String[] args) {
        HikariDataSource dataSource = ChildPool.of(args, 4);
        CounterService counters = CounterService.builder(JooqCounterStore.builder(dataSource)
                        .tablePrefix(args[3])
                        .build())
                .defaultStrategy(BufferedSettings.defaults().withFlushInterval(Duration.ofMillis(100)))
                .build();
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        for (long done = 1; System.nanoTime() < deadline; done++) {
            if (done % 1_000 == 0) {
                counters.incrementDurably(args[4], 1).join();
                System.out.println("DURABLE " + done);
                System.out.flush();
            } else {
                counters.increment(args[4]);
            }
        }
        System.exit(3); // the test should have killed us long before
    }
}
