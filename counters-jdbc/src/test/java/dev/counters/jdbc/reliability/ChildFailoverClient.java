package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import dev.counters.testing.TestThreads;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An application process of {@link PatroniSynchronousFailoverTest}, writing through the cluster's multi-host URL until
 * the file {@code stopFile} exists (at most 5 minutes): every counting strategy ({@link #STRATEGIES}, one writer and
 * one reader each, on counters {@code <strategy>.<i>} that both processes share), three of them with idempotency keys
 * ({@link KeyedCallers}, {@code <strategy>-keyed.<i>}), keyed shop callers of bounded stocks ({@link BoundedCallers},
 * {@code stock.<i>}), two drawers each from a block and a gapless sequence, and a monotonic counter of its own
 * ({@code monotonic.<session>}: the default cache is per JVM) whose service is rebuilt every second, so that it starts
 * cold from what the database holds, after a failover too. Then it closes (a buffered strategy flushes) and writes its
 * history and the numbers it was handed to files. {@code progressFile} holds when (the machine's monotonic clock) the
 * latest write that reached the database and was acknowledged was invoked, so that the test sees when each process
 * writes again. Arguments:
 * jdbcUrl user password tablePrefix session historyFile numbersFile progressFile stopFile.
 */
public final class ChildFailoverClient {

    static final int COUNTERS = 4;
    static final long STOCK = 1_000_000;

    /** The counting strategies, as an application would configure them (buffered flushing often, to keep up). */
    static final Map<String, StrategySettings> STRATEGIES = strategies();

    /** The strategies whose callers also repeat each increment under an idempotency key. */
    static final List<String> KEYED = List.of("atomic", "delta-log", "buffered");

    private ChildFailoverClient() {}

    private static Map<String, StrategySettings> strategies() {
        Map<String, StrategySettings> strategies = new LinkedHashMap<>();
        strategies.put("atomic", AtomicSettings.defaults());
        strategies.put("optimistic", OptimisticSettings.defaults());
        strategies.put("sharded", ShardedSettings.defaults());
        strategies.put("node", NodeSettings.defaults());
        strategies.put("delta-log", DeltaLogSettings.defaults().withRecountAtDeltas(100));
        strategies.put("buffered", BufferedSettings.defaults().withFlushInterval(Duration.ofMillis(20)));
        return strategies;
    }

    /** Escrow for every busy process, refills small enough that the pool row is written often. */
    static BoundedSettings stock() {
        return BoundedSettings.of(0L, null)
                .withInitial(STOCK)
                .withEscrowAbove(0)
                .withRefills(Duration.ofMillis(200), 4_096, 65_536);
    }

    static final SequenceSettings BLOCK =
            SequenceSettings.defaults().withBlockSize(10).withMaxBlockSize(10);

    public static void main(String[] args) throws Exception {
        String prefix = args[3];
        String session = args[4];
        Path stop = Path.of(args[8]);
        MappedByteBuffer progress;
        try (FileChannel file = FileChannel.open(
                Path.of(args[7]), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            progress = file.map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES);
        }
        History history = History.timedBy(System::nanoTime);
        Map<String, List<Long>> numbers = Workload.newNumbers();
        List<AutoCloseable> services = new ArrayList<>();
        SplittableRandom random = new SplittableRandom();
        AtomicLong latestWrite = new AtomicLong();
        try (HikariDataSource dataSource = ChildPool.of(args, 40)) {
            JooqCounterStore store =
                    JooqCounterStore.builder(dataSource).tablePrefix(prefix).build();
            Workload workload = new Workload().pauseBetweenOperations(Duration.ofMillis(2));
            try (workload) {
                for (Map.Entry<String, StrategySettings> strategy : STRATEGIES.entrySet()) {
                    for (boolean keyed : List.of(false, true)) {
                        if (keyed && !KEYED.contains(strategy.getKey())) {
                            continue;
                        }
                        String name = strategy.getKey() + (keyed ? "-keyed" : "");
                        KeyedCallers callers = new KeyedCallers(); // its retry registry counts the keyed retries
                        CounterService service = CounterService.builder(store)
                                .defaultStrategy(strategy.getValue())
                                .retryRegistry(callers.retries)
                                .build();
                        services.add(service);
                        Workload.Incrementer increment = keyed ? callers.of(service) : service::increment;
                        boolean buffered = strategy.getKey().equals("buffered");
                        List<String> counters = Workload.names(name + ".", COUNTERS);
                        String writer = session + "/" + name;
                        workload.increments(
                                writer,
                                (counter, delta) -> {
                                    long invoked = System.nanoTime();
                                    increment.increment(counter, delta);
                                    if (!buffered) {
                                        progress.putLong(0, latestWrite.accumulateAndGet(invoked, Math::max));
                                    }
                                },
                                history,
                                counters,
                                buffered
                                        ? UniqueDeltas.between(random.split(), 1, 1L << 31, false)
                                        : UniqueDeltas.large(random.split()),
                                1);
                        workload.repeating(1, () -> {
                            String counter =
                                    counters.get(ThreadLocalRandom.current().nextInt(counters.size()));
                            history.read(writer, counter, () -> service.get(counter));
                        });
                    }
                }
                CounterService shop =
                        CounterService.builder(store).defaultStrategy(stock()).build();
                services.add(shop);
                BoundedCallers shoppers = new BoundedCallers(true);
                List<String> stocks = Workload.names("stock.", 2);
                UniqueDeltas units = UniqueDeltas.between(random.split(), 1, 1L << 13, false);
                workload.repeating(2, () -> shoppers.operate(shop, session + "/stock", history, stocks, units));
                workload.repeating(1, () -> {
                    String stock = stocks.get(ThreadLocalRandom.current().nextInt(stocks.size()));
                    history.read(session + "/stock", stock, () -> shop.get(stock));
                });
                for (SequenceSettings settings : List.of(BLOCK, SequenceSettings.gapless())) {
                    SequenceService sequences = SequenceService.builder(store)
                            .defaultSettings(settings)
                            .build();
                    services.add(sequences);
                    String sequence = settings.equals(BLOCK) ? "block" : "gapless";
                    Map<String, List<Long>> mine = Workload.newNumbers();
                    workload.numbers(sequences, sequence, 2, mine);
                    mine.forEach((caller, list) -> numbers.put(session + "/" + caller, list));
                }
                List<Long> monotonic = new ArrayList<>();
                numbers.put(session + "/monotonic", monotonic);
                Thread restarts = TestThreads.start(() -> drawMonotonic(store, session, monotonic, stop));
                System.out.println("READY");
                System.out.flush();
                workload.until(() -> Files.exists(stop), TimeUnit.MINUTES.toSeconds(5));
                restarts.join(TimeUnit.MINUTES.toMillis(1));
            } // the workload stops first, then the services close: what a buffered strategy holds is flushed
            for (AutoCloseable service : services) {
                service.close();
            }
        }
        Files.write(Path.of(args[5]), history.lines());
        List<String> lines = new ArrayList<>();
        numbers.forEach((caller, list) -> {
            synchronized (list) {
                list.forEach(number -> lines.add(caller + "\t" + number));
            }
        });
        Files.write(Path.of(args[6]), lines);
        System.out.println("DONE " + history.count(History.Outcome.OK) + " acknowledged, "
                + history.count(History.Outcome.FAILED) + " refused, " + history.count(History.Outcome.UNKNOWN)
                + " unknown, " + history.reads() + " reads, " + lines.size() + " numbers");
    }

    /**
     * Draws from a monotonic counter, its service rebuilt every second (a process restart): each service starts
     * from the maximum the database holds, so a lost maximum would hand out values again.
     */
    private static void drawMonotonic(JooqCounterStore store, String session, List<Long> values, Path stop) {
        String counter = "monotonic." + session;
        while (!Files.exists(stop)) {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            try (CounterService service = CounterService.builder(store)
                    .defaultStrategy(MonotonicSettings.defaults())
                    .build()) {
                while (System.nanoTime() < until) {
                    long value = service.incrementAndGet(counter, 1);
                    synchronized (values) {
                        values.add(value);
                    }
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                }
            } catch (RuntimeException e) {
                // not handed out (the primary is away): the next service starts from what the database holds
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }
}
