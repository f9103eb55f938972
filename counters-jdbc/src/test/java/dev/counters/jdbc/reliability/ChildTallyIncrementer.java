package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterContentionException;
import dev.counters.CounterService;
import dev.counters.TransientStoreException;
import dev.counters.contract.CollidingIdsStore;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.StrategySettings;
import dev.counters.testing.TestThreads;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An application process of {@link MultiProcessRestartTest}: increments one counter by 1 from several threads until
 * it is stopped (SIGTERM closes the service gracefully) or killed. Each thread keeps its tally in a memory-mapped
 * file, which outlives a {@code kill -9}: acknowledged increments, increments whose outcome is unknown, and whether
 * one is in flight. Arguments: jdbcUrl user password tablePrefix counter threads strategy tallyFile, where strategy is
 * {@code delta-log}, {@code optimistic}, {@code delta-log-colliding} or {@code buffered-colliding} (durable increments
 * through a store whose ids collide with every other process's, see {@link CollidingIdsStore}). A refusal that wrote
 * nothing (rolled back, or optimistic's contention) is neither acknowledged nor unknown.
 */
public final class ChildTallyIncrementer {

    /** Longs per thread in the tally: acknowledged, unknown, in flight. */
    static final int SLOT = 3;

    private ChildTallyIncrementer() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        int threads = Integer.parseInt(args[5]);
        String strategy = args[6];
        MappedByteBuffer tally;
        try (FileChannel file = FileChannel.open(
                Path.of(args[7]), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            tally = file.map(FileChannel.MapMode.READ_WRITE, 0, (long) threads * SLOT * Long.BYTES);
        }
        HikariDataSource dataSource = ChildPool.of(args, threads + 2);
        CounterStore store =
                JooqCounterStore.builder(dataSource).tablePrefix(args[3]).build();
        CounterService counters = CounterService.builder(
                        strategy.endsWith("-colliding") ? new CollidingIdsStore(store) : store)
                .defaultStrategy(strategy(strategy))
                .build();
        boolean durable = strategy.startsWith("buffered");
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        AtomicBoolean stopping = new AtomicBoolean();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int at = t * SLOT * Long.BYTES;
            workers.add(TestThreads.start(() -> {
                long acknowledged = 0;
                long unknown = 0;
                while (!stopping.get() && System.nanoTime() < deadline) {
                    tally.putLong(at + 2 * Long.BYTES, 1);
                    try {
                        if (durable) {
                            counters.incrementDurably(args[4], 1).join();
                        } else {
                            counters.increment(args[4]);
                        }
                        tally.putLong(at, ++acknowledged);
                    } catch (RuntimeException e) {
                        if (!(e instanceof TransientStoreException
                                || e instanceof CounterContentionException
                                || e.getCause() instanceof TransientStoreException)) {
                            tally.putLong(at + Long.BYTES, ++unknown);
                        }
                    }
                    tally.putLong(at + 2 * Long.BYTES, 0);
                }
            }));
        }
        // SIGTERM, a graceful stop as an application server does it: no new requests, the running ones end, then close.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopping.set(true);
            for (Thread worker : workers) {
                try {
                    worker.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            counters.close();
        }));
        System.out.println("READY");
        System.out.flush();
        for (Thread worker : workers) {
            worker.join();
        }
        if (!stopping.get()) {
            System.exit(3); // the test should have stopped us long before
        }
    }

    private static StrategySettings strategy(String name) {
        return switch (name) {
            case "delta-log", "delta-log-colliding" -> DeltaLogSettings.defaults();
            case "optimistic" -> OptimisticSettings.defaults();
            case "buffered-colliding" -> BufferedSettings.defaults().withFlushInterval(Duration.ofMillis(20));
            default -> throw new IllegalArgumentException("unknown strategy " + name);
        };
    }
}
