package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.CounterServiceBuilder;
import dev.counters.history.History;
import dev.counters.history.UniqueDeltas;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;

/**
 * An application process of {@link RollingStrategyChangeTest}, on the old or the new configuration of a strategy
 * change: every counter {@code roll.<from>.<to>.<i>} is on {@code from} in an old process ({@code roll.<from>.*}) and on
 * {@code to} in a new one ({@code roll.*.<to>.*}), so the 30 changes between counting strategies run in the same
 * processes. Writers increment random counters by unique deltas, half of them with {@code incrementAndGet}, and a
 * reader reads them, for the given seconds; then it closes the service (a buffered strategy flushes) and writes its
 * history, timed by the machine's monotonic clock, to the file. Arguments: jdbcUrl user password tablePrefix
 * old|new seconds historyFile.
 */
public final class ChildRollingIncrementer {

    static final int WRITERS = 4;
    static final int COUNTERS_PER_CHANGE = 2;

    /** The counting strategies, as an application would configure them (buffered flushing often, to keep up). */
    static final Map<String, StrategySettings> STRATEGIES = strategies();

    private ChildRollingIncrementer() {}

    private static Map<String, StrategySettings> strategies() {
        Map<String, StrategySettings> strategies = new LinkedHashMap<>();
        strategies.put("atomic", AtomicSettings.defaults());
        strategies.put("optimistic", OptimisticSettings.defaults());
        strategies.put("sharded", ShardedSettings.defaults());
        strategies.put("node", NodeSettings.defaults());
        strategies.put("buffered", BufferedSettings.defaults().withFlushInterval(Duration.ofMillis(50)));
        strategies.put("delta-log", DeltaLogSettings.defaults());
        return strategies;
    }

    /** Every counter of the run: {@value #COUNTERS_PER_CHANGE} for each ordered pair of strategies. */
    static List<String> counters() {
        List<String> counters = new ArrayList<>();
        for (String from : STRATEGIES.keySet()) {
            for (String to : STRATEGIES.keySet()) {
                for (int i = 0; i < COUNTERS_PER_CHANGE && !from.equals(to); i++) {
                    counters.add("roll." + from + "." + to + "." + i);
                }
            }
        }
        return counters;
    }

    public static void main(String[] args) throws Exception {
        boolean old = args[4].equals("old");
        List<String> counters = counters();
        History history = History.timedBy(System::nanoTime);
        String session = args[4] + "@" + ProcessHandle.current().pid();
        UniqueDeltas deltas = UniqueDeltas.large(new SplittableRandom());
        try (HikariDataSource dataSource = ChildPool.of(args, WRITERS + 8)) {
            CounterServiceBuilder builder = CounterService.builder(
                    JooqCounterStore.builder(dataSource).tablePrefix(args[3]).build());
            STRATEGIES.forEach((name, strategy) ->
                    builder.strategy(old ? "roll." + name + ".*" : "roll.*." + name + ".*", strategy));
            try (CounterService service = builder.build();
                    Workload workload = new Workload().pauseBetweenOperations(Duration.ofMillis(2))) {
                System.out.println("READY");
                System.out.flush();
                workload.repeating(WRITERS, () -> {
                            String counter =
                                    counters.get(ThreadLocalRandom.current().nextInt(counters.size()));
                            long delta = deltas.next();
                            if (ThreadLocalRandom.current().nextBoolean()) {
                                history.add(session, counter, delta, () -> service.increment(counter, delta));
                            } else {
                                history.addAndGet(
                                        session, counter, delta, () -> service.incrementAndGet(counter, delta));
                            }
                        })
                        .repeating(1, () -> {
                            String counter =
                                    counters.get(ThreadLocalRandom.current().nextInt(counters.size()));
                            history.read(session, counter, () -> service.get(counter));
                        })
                        .until(() -> false, Long.parseLong(args[5]));
            } // the workload stops first, then the service closes: what a buffered strategy holds is flushed
        }
        Files.write(Path.of(args[6]), history.lines());
        System.out.println("DONE " + history.count(History.Outcome.OK) + " acknowledged, "
                + history.count(History.Outcome.FAILED) + " refused, " + history.count(History.Outcome.UNKNOWN)
                + " unknown, " + history.reads() + " reads");
    }
}
