package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.BoundedCounter;
import dev.counters.CounterService;
import dev.counters.CountersException;
import dev.counters.Hold;
import dev.counters.HoldStatus;
import dev.counters.IdempotencyKey;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.strategy.BoundedSettings;
import dev.counters.testing.TestThreads;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * An application process of {@link MultiProcessSellOutTest}: sells one unit at a time of a bounded stock from several
 * threads until the stock is sold out, then closes its service (giving its allowance back) and exits. Every fifth sale
 * is a checkout: a unit held under a key, then confirmed (sold), released, or left to expire. Each thread keeps its
 * tally in a memory-mapped file, which outlives a {@code kill -9}: units sold (acknowledged), changes whose outcome is
 * unknown, and whether one is in flight. It starts selling once the file {@code goFile} exists, so that every process
 * sells at once. Arguments: jdbcUrl user password tablePrefix counter threads nodeId initial tallyFile goFile.
 */
public final class ChildBoundedSeller {

    /** Longs per thread in the tally: sold, unknown, in flight. */
    static final int SLOT = 3;

    /** How long a checkout's hold lasts unconfirmed. */
    static final Duration HOLD_TTL = Duration.ofSeconds(2);

    private ChildBoundedSeller() {}

    /** The settings every process of the test uses: escrow from the first change, quick give-back and sweep. */
    static BoundedSettings settings(String nodeId, long initial) {
        return BoundedSettings.of(0L, null)
                .withInitial(initial)
                .withNodeId(nodeId)
                .withEscrowAbove(1)
                .withGiveBackAfter(Duration.ofMillis(500))
                .withSweepInterval(Duration.ofMillis(500))
                .withLeaseTtl(Duration.ofSeconds(2));
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        int threads = Integer.parseInt(args[5]);
        String counter = args[4];
        MappedByteBuffer tally;
        try (FileChannel file = FileChannel.open(
                Path.of(args[8]), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            tally = file.map(FileChannel.MapMode.READ_WRITE, 0, (long) threads * SLOT * Long.BYTES);
        }
        try (HikariDataSource dataSource = ChildPool.of(args, threads + 4);
                CounterService counters = CounterService.builder(JooqCounterStore.builder(dataSource)
                                .tablePrefix(args[3])
                                .build())
                        .strategy(counter, settings(args[6], Long.parseLong(args[7])))
                        .build()) {
            BoundedCounter stock = counters.bounded(counter);
            System.out.println("READY");
            System.out.flush();
            Path go = Path.of(args[9]);
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (!Files.exists(go) && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int at = t * SLOT * Long.BYTES;
                String keys = args[6] + "-" + ProcessHandle.current().pid() + "-" + t + "-";
                workers.add(TestThreads.start(() -> sell(stock, tally, at, keys)));
            }
            for (Thread worker : workers) {
                worker.join();
            }
        }
        System.out.println("SOLD OUT");
    }

    /** Sells until a sale is refused: the stock was 0 in a consistent read. */
    private static void sell(BoundedCounter stock, MappedByteBuffer tally, int at, String keys) {
        long sold = 0;
        long unknown = 0;
        for (long i = 0; ; i++) {
            tally.putLong(at + 2 * Long.BYTES, 1);
            try {
                boolean done = i % 5 == 4 ? checkout(stock, IdempotencyKey.of(keys + i), i) : stock.tryIncrement(-1);
                if (!done && i % 5 != 4) {
                    tally.putLong(at + 2 * Long.BYTES, 0);
                    return; // sold out
                }
                if (done) {
                    tally.putLong(at, ++sold);
                }
            } catch (CountersException e) {
                if (e.mayHaveBeenApplied()) {
                    tally.putLong(at + Long.BYTES, ++unknown);
                }
            }
            tally.putLong(at + 2 * Long.BYTES, 0);
        }
    }

    /**
     * A checkout: holds a unit, then confirms it (a sale), releases it, or leaves it to expire. Whether a unit was
     * sold. Keyed calls are repeated under their key until they answer, as a shop's retrying client would.
     */
    private static boolean checkout(BoundedCounter stock, IdempotencyKey key, long i) {
        Hold hold = untilAnswered(() -> stock.reserve(-1, HOLD_TTL, key));
        if (hold.status() != HoldStatus.HELD) {
            return false;
        }
        if (i % 15 == 4) {
            untilAnswered(() -> stock.release(key));
            return false;
        }
        if (i % 15 == 9) {
            return false; // abandoned: it expires
        }
        return untilAnswered(() -> stock.confirm(key)).status() == HoldStatus.CONFIRMED;
    }

    private static <T> T untilAnswered(Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (CountersException e) {
                if (attempt >= 100) {
                    throw e;
                }
            }
        }
    }
}
