package dev.counters.benchmarks;

import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.Strategies;
import java.util.ArrayList;
import java.util.List;

/** Every workload the driver knows, by the name used on the command line and in the report. */
final class Workloads {

    private Workloads() {
    }

    static List<Workload.Kind> counting() {
        List<Workload.Kind> kinds = new ArrayList<>(List.of(
                new Workload.Kind("atomic", "one upsert per increment", StrategyWorkload.of(Strategies.atomic())),
                new Workload.Kind("optimistic", "compare-and-set, concurrent increments combined",
                        StrategyWorkload.of(Strategies.optimistic())),
                new Workload.Kind("sharded", "16 shards, random selection", StrategyWorkload.of(Strategies.sharded())),
                new Workload.Kind("node", "one row per node (one node here)", StrategyWorkload.of(Strategies.node())),
                new Workload.Kind("buffered", "in memory, flushed every second",
                        StrategyWorkload.of(Strategies.buffered())),
                new Workload.Kind("buffered-durable", "incrementDurably(...).join(): acknowledged after the commit",
                        StrategyWorkload.durable(Strategies.buffered())),
                new Workload.Kind("delta-log", "one insert per increment, folded by recounts",
                        StrategyWorkload.of(Strategies.deltaLog())),
                new Workload.Kind("monotonic", "cached, every value written (chance-to-write 1.0)",
                        StrategyWorkload.of(Strategies.monotonic())),
                new Workload.Kind("plain-update", "baseline: UPDATE … SET v = v + 1, one commit each",
                        (dataSource, database, counters) -> new PlainUpdateWorkload(dataSource, counters)),
                new Workload.Kind("jpa-version", "baseline: Hibernate entity with @Version, retried on conflicts",
                        (dataSource, database, counters) -> new JpaVersionWorkload(dataSource, database, counters))));
        if (RedisWorkload.available()) {
            kinds.add(new Workload.Kind("redis-incr", "baseline: Redis INCR (in memory, no persistence)",
                    RedisWorkload.opener()));
        }
        return kinds;
    }

    static List<SequenceWorkload.Kind> sequences() {
        return List.of(
                new SequenceWorkload.Kind("sequence-block", "this library, blocks of 1,000",
                        SequenceWorkload.library(SequenceSettings.defaults())),
                new SequenceWorkload.Kind("sequence-gapless", "this library, one transaction per number",
                        SequenceWorkload.library(SequenceSettings.gapless())),
                new SequenceWorkload.Kind("auto-increment", "baseline: insert into an AUTO_INCREMENT/identity table",
                        SequenceWorkload.autoIncrement()),
                new SequenceWorkload.Kind("db-sequence", "baseline: NEXT VALUE FOR / nextval of a database sequence",
                        SequenceWorkload.databaseSequence()));
    }

    static Workload.Kind counting(String name) {
        return counting().stream().filter(kind -> kind.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown workload '" + name + "'; known: "
                        + counting().stream().map(Workload.Kind::name).toList()));
    }
}
