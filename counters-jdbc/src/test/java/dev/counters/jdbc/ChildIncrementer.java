package dev.counters.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterContentionException;
import dev.counters.CounterService;
import dev.counters.CountersException;
import dev.counters.IdempotencyKey;
import dev.counters.contract.Concurrently;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The second JVM of the multi-process tests: increments one counter from several threads through its own
 * connection pool and store, then prints how many increments were acknowledged.
 * Arguments: jdbcUrl user password tablePrefix counter threads incrementsPerThread strategy [keyed]; with
 * {@code keyed}, each thread makes its increments under the keys {@code k-<thread>-<i>}, which the test's own process
 * sends too.
 */
public final class ChildIncrementer {

    private ChildIncrementer() {}

    public static void main(String[] args) {
        int threads = Integer.parseInt(args[5]);
        int perThread = Integer.parseInt(args[6]);
        AtomicLong acknowledged = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        try (HikariDataSource dataSource = ChildPool.of(args, threads);
                CounterService counters = CounterService.builder(JooqCounterStore.builder(dataSource)
                                .tablePrefix(args[3])
                                .build())
                        .defaultStrategy(strategy(args[7]))
                        .build()) {
            System.out.println("READY");
            System.out.flush();
            if (args.length > 8 && args[8].equals("keyed")) {
                Concurrently.run(threads, thread -> incrementKeyed(counters, args[4], thread, perThread, acknowledged));
            } else {
                Concurrently.run(
                        threads, thread -> incrementCounting(counters, args[4], perThread, acknowledged, refused));
            }
        }
        System.out.println("ACKNOWLEDGED " + acknowledged.get() + " REFUSED " + refused.get());
    }

    /**
     * Increments {@code times} times, counting acknowledged increments and those refused by an optimistic counter
     * that lost every attempt (refused increments wrote nothing, so they do not count).
     */
    static void incrementCounting(
            CounterService counters, String counter, int times, AtomicLong acknowledged, AtomicLong refused) {
        for (int i = 0; i < times; i++) {
            try {
                counters.increment(counter);
                acknowledged.incrementAndGet();
            } catch (CounterContentionException e) {
                refused.incrementAndGet();
            }
        }
    }

    /**
     * Increments {@code times} times, each under its key {@code k-<thread>-<i>}, repeating an increment under its key
     * until it is acknowledged: whatever failed, the key makes the repeat safe.
     */
    static void incrementKeyed(
            CounterService counters, String counter, int thread, int times, AtomicLong acknowledged) {
        for (int i = 0; i < times; i++) {
            IdempotencyKey key = IdempotencyKey.of("k-" + thread + "-" + i);
            for (int attempt = 1; ; attempt++) {
                try {
                    counters.increment(counter, 1, key);
                    acknowledged.incrementAndGet();
                    break;
                } catch (CountersException e) {
                    if (attempt >= 100) {
                        throw e;
                    }
                }
            }
        }
    }

    static StrategySettings strategy(String name) {
        return switch (name) {
            case "atomic" -> AtomicSettings.defaults();
            case "optimistic" -> OptimisticSettings.defaults();
            case "sharded" -> ShardedSettings.defaults();
            case "node" -> NodeSettings.defaults();
            case "delta-log" -> DeltaLogSettings.defaults();
            case "buffered" -> BufferedSettings.defaults();
            default -> throw new IllegalArgumentException("unknown strategy " + name);
        };
    }
}
