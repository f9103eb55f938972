package dev.counters.benchmarks;

import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Every workload the driver knows, by the name used on the command line and in the report. */
final class Workloads {

    private Workloads() {}

    static List<Workload.Kind> counting() {
        List<Workload.Kind> kinds = new ArrayList<>(List.of(
                new Workload.Kind(
                        "atomic",
                        "one update per increment (an upsert for the first)",
                        StrategyWorkload.of(AtomicSettings.defaults())),
                new Workload.Kind(
                        "optimistic",
                        "compare-and-set, concurrent increments combined",
                        StrategyWorkload.of(OptimisticSettings.defaults())),
                new Workload.Kind(
                        "sharded", "16 shards, random selection", StrategyWorkload.of(ShardedSettings.defaults())),
                new Workload.Kind(
                        "node", "one row per node (one node here)", StrategyWorkload.of(NodeSettings.defaults())),
                new Workload.Kind(
                        "node-2",
                        "two service instances, each with its pool and node id",
                        StrategyWorkload.instances(NodeSettings.defaults(), 2)),
                new Workload.Kind(
                        "node-4",
                        "four service instances, each with its pool and node id",
                        StrategyWorkload.instances(NodeSettings.defaults(), 4)),
                new Workload.Kind(
                        "buffered",
                        "in memory, flushed every second",
                        StrategyWorkload.of(BufferedSettings.defaults())),
                new Workload.Kind(
                        "buffered-durable",
                        "incrementDurably(...).join(): acknowledged after the commit",
                        StrategyWorkload.durable(BufferedSettings.defaults())),
                new Workload.Kind(
                        "atomic-keyed",
                        "atomic, each increment under an idempotency key of its own",
                        StrategyWorkload.keyed(AtomicSettings.defaults())),
                new Workload.Kind(
                        "sharded-keyed",
                        "sharded, each increment under an idempotency key of its own",
                        StrategyWorkload.keyed(ShardedSettings.defaults())),
                new Workload.Kind(
                        "buffered-keyed",
                        "buffered, each increment under an idempotency key of its own;"
                                + " callers wait for room when 100,000 keys are pending (when-full: block)",
                        StrategyWorkload.keyed(BufferedSettings.defaults()
                                .withWhenFull(BufferedSettings.WhenFull.BLOCK, Duration.ofSeconds(5)))),
                new Workload.Kind(
                        "delta-log",
                        "one insert per increment, folded by recounts",
                        StrategyWorkload.of(DeltaLogSettings.defaults())),
                new Workload.Kind(
                        "monotonic",
                        "cached, every value written (chance-to-write 1.0)",
                        StrategyWorkload.of(MonotonicSettings.defaults())),
                new Workload.Kind(
                        "plain-update",
                        "baseline: UPDATE … SET v = v + 1, one commit each",
                        setup -> new PlainUpdateWorkload(setup.dataSource(), setup.counters())),
                new Workload.Kind(
                        "jdbc-update",
                        "baseline: the update atomic and node send for an existing cell, by hand in JDBC",
                        RawJdbcWorkload.opener(RawJdbcWorkload.Statements.UPDATE)),
                new Workload.Kind(
                        "jdbc-update-sharded",
                        "baseline: sharded's update of a random one of 16 shards, by hand in JDBC",
                        RawJdbcWorkload.opener(RawJdbcWorkload.Statements.SHARDED_UPDATE)),
                new Workload.Kind(
                        "jdbc-insert",
                        "baseline: the delta row delta-log appends, by hand in JDBC",
                        RawJdbcWorkload.opener(RawJdbcWorkload.Statements.INSERT)),
                new Workload.Kind(
                        "jdbc-cas",
                        "baseline: optimistic's versioned update (and its read after a lost update), by hand in JDBC",
                        RawJdbcWorkload.opener(RawJdbcWorkload.Statements.COMPARE_AND_SET)),
                new Workload.Kind(
                        "jpa-version",
                        "baseline: Hibernate entity with @Version, retried on conflicts",
                        setup -> new JpaVersionWorkload(setup.dataSource(), setup.database(), setup.counters()))));
        if (RedisWorkload.available()) {
            kinds.add(new Workload.Kind(
                    "redis-incr",
                    "baseline: Redis INCR (in memory, no persistence)",
                    RedisWorkload.opener(RedisWorkload.Persistence.NONE)));
            kinds.add(new Workload.Kind(
                    "redis-always",
                    "baseline: Redis INCR, appendfsync always, ~1 ms per sync",
                    RedisWorkload.opener(RedisWorkload.Persistence.ALWAYS)));
            kinds.add(new Workload.Kind(
                    "redis-everysec",
                    "baseline: Redis INCR, appendfsync everysec",
                    RedisWorkload.opener(RedisWorkload.Persistence.EVERYSEC)));
        }
        return kinds;
    }

    /**
     * Three application instances, each with its own pool (on a Galera cluster, each through a node of its own), on
     * one set of counters: what the Galera comparison runs.
     */
    static List<Workload.Kind> threeInstances() {
        return List.of(
                new Workload.Kind(
                        "plain-update-3",
                        "baseline: UPDATE … SET v = v + 1 from three instances",
                        setup -> PlainUpdateWorkload.instances(setup, 3)),
                new Workload.Kind(
                        "atomic-3",
                        "atomic, three instances",
                        StrategyWorkload.instances(AtomicSettings.defaults(), 3)),
                new Workload.Kind(
                        "optimistic-3",
                        "optimistic, three instances",
                        StrategyWorkload.instances(OptimisticSettings.defaults(), 3)),
                new Workload.Kind(
                        "sharded-3",
                        "sharded, three instances",
                        StrategyWorkload.instances(ShardedSettings.defaults(), 3)),
                new Workload.Kind(
                        "node-3",
                        "node, three instances, a node id each",
                        StrategyWorkload.instances(NodeSettings.defaults(), 3)),
                new Workload.Kind(
                        "delta-log-3",
                        "delta-log, three instances",
                        StrategyWorkload.instances(DeltaLogSettings.defaults(), 3)),
                new Workload.Kind(
                        "buffered-durable-3",
                        "buffered, incrementDurably(...).join(), three instances",
                        StrategyWorkload.durableInstances(BufferedSettings.defaults(), 3)));
    }

    /**
     * {@code monotonic} with its cache on Redis, three application instances: what docs/benchmarks-redis.md adds to
     * the kinds above. Empty without a {@code redis-server}.
     */
    static List<Workload.Kind> monotonicRedis() {
        if (!RedisWorkload.available()) {
            return List.of();
        }
        MonotonicSettings everyValue = MonotonicSettings.defaults();
        return List.of(
                new Workload.Kind(
                        "monotonic-redis-3",
                        "monotonic, cache on Redis, three instances, every value" + " written (chance-to-write 1.0)",
                        MonotonicRedisWorkload.opener(everyValue, 3)),
                new Workload.Kind(
                        "monotonic-redis-3-chance-0.01",
                        "monotonic, cache on Redis, three instances," + " chance-to-write 0.01",
                        MonotonicRedisWorkload.opener(everyValue.withChanceToWrite(0.01), 3)));
    }

    /** The stock the load driver sells from: more than any point sells, so that no change is refused. */
    static final long LOAD_STOCK = 10_000_000;

    /**
     * The ways of selling a stock: the {@code bounded} strategy and what a shop would use instead. The Redis anchor
     * only with a {@code redis-server}.
     */
    static List<SellOut.Kind> stocks() {
        BoundedSettings bounded = BoundedSettings.defaults();
        List<SellOut.Kind> kinds = new ArrayList<>(List.of(
                new SellOut.Kind(
                        "bounded",
                        "tryIncrement(-1), min 0: escrow, one service instance",
                        BoundedWorkload.instances(bounded, 1)),
                new SellOut.Kind(
                        "bounded-4",
                        "four service instances, each with its pool and node id",
                        BoundedWorkload.instances(bounded, 4)),
                new SellOut.Kind(
                        "bounded-pool",
                        "escrow off: every change on the guarded pool row, concurrent ones combined",
                        BoundedWorkload.instances(bounded.withEscrow(false), 1)),
                new SellOut.Kind(
                        "bounded-pool-4",
                        "escrow off, four service instances: what the allowances save them (one shared row)",
                        BoundedWorkload.instances(bounded.withEscrow(false), 4)),
                new SellOut.Kind(
                        "guarded-update",
                        "baseline: UPDATE … SET v = v - 1 WHERE id = ? AND v >= 1, one commit each",
                        GuardedUpdateWorkload.instances(1)),
                new SellOut.Kind(
                        "guarded-update-4", "baseline: the same from four pools", GuardedUpdateWorkload.instances(4))));
        if (RedisWorkload.available()) {
            kinds.add(new SellOut.Kind(
                    "redis-bounded-always",
                    "anchor: INCREX … LBOUND by hand in a Lua script, appendfsync always, ~1 ms per sync",
                    RedisBoundedWorkload.opener()));
        }
        return kinds;
    }

    /** The ways of selling, as the load driver's workloads on a stock of {@link #LOAD_STOCK}. */
    static List<Workload.Kind> bounded() {
        return stocks().stream().map(kind -> kind.load(LOAD_STOCK)).toList();
    }

    /** What the sell-out compares: bounded from one and four instances, the guarded update, Redis. */
    static List<SellOut.Kind> sellOuts() {
        List<String> names = List.of("bounded", "bounded-4", "guarded-update", "redis-bounded-always");
        return stocks().stream().filter(kind -> names.contains(kind.name())).toList();
    }

    static List<SequenceWorkload.Kind> sequences() {
        return List.of(
                new SequenceWorkload.Kind(
                        "sequence-block",
                        "this library, blocks of 1,000",
                        SequenceWorkload.library(SequenceSettings.defaults())),
                new SequenceWorkload.Kind(
                        "sequence-gapless",
                        "this library, one transaction per number",
                        SequenceWorkload.library(SequenceSettings.gapless())),
                new SequenceWorkload.Kind(
                        "auto-increment",
                        "baseline: insert into an AUTO_INCREMENT/identity table",
                        SequenceWorkload.autoIncrement()),
                new SequenceWorkload.Kind(
                        "db-sequence",
                        "baseline: NEXT VALUE FOR / nextval of a database sequence",
                        SequenceWorkload.databaseSequence()));
    }

    static SequenceWorkload.Kind sequence(String name) {
        return sequences().stream()
                .filter(kind -> kind.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown sequence workload '" + name + "'"));
    }

    /** What {@code load} can run: the counting workloads and the ways of selling a stock. */
    static List<Workload.Kind> all() {
        List<Workload.Kind> all = new ArrayList<>(counting());
        all.addAll(bounded());
        return all;
    }

    static Workload.Kind counting(String name) {
        return counting().stream()
                .filter(kind -> kind.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown workload '" + name + "'; known: "
                        + counting().stream().map(Workload.Kind::name).toList()));
    }
}
