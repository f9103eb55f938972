package dev.counters.spring.boot;

import dev.counters.NamePattern;
import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardSelection;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.Strategies;
import dev.counters.strategy.StrategyFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of counters, under {@code counters.*}. Values are checked while they are bound, so a bad one fails
 * startup with a message naming the property.
 *
 * @param defaultStrategy The strategy of every counter not configured otherwise
 * @param counters The strategy of particular counters, by exact name or by pattern ('*' any run of
 *     characters, '?' one); in YAML, write a key with dots or wildcards in brackets: '"[orders.*]"'
 * @param optimistic Settings of the optimistic strategy
 * @param sharded Settings of the sharded strategy
 * @param node Settings of the node strategy
 * @param buffered Settings of the buffered strategy
 * @param deltaLog Settings of the delta-log strategy
 * @param monotonic Settings of the monotonic strategy
 * @param sequences Settings of particular sequences, by exact name or pattern
 * @param jdbc Where and how counters are stored in the application's database
 */
@ConfigurationProperties("counters")
public record CountersProperties(
        @DefaultValue("atomic") StrategyType defaultStrategy,
        Map<String, CounterProperties> counters,
        @DefaultValue Optimistic optimistic,
        @DefaultValue Sharded sharded,
        @DefaultValue Node node,
        @DefaultValue Buffered buffered,
        @DefaultValue DeltaLog deltaLog,
        @DefaultValue Monotonic monotonic,
        Map<String, SequenceProperties> sequences,
        @DefaultValue Jdbc jdbc) {

    public CountersProperties {
        counters = counters == null ? Map.of() : new LinkedHashMap<>(counters);
        sequences = sequences == null ? Map.of() : new LinkedHashMap<>(sequences);
        // Names and patterns are checked here, while binding, so that the failure names the property.
        counters.keySet().forEach(key -> validateRule("counters.counters", key));
        sequences.keySet().forEach(key -> validateRule("counters.sequences", key));
        for (Map.Entry<String, CounterProperties> counter : counters.entrySet()) {
            counter.getValue().factory(counter.getKey(), defaultStrategy, optimistic, sharded, node, buffered,
                    deltaLog, monotonic); // fails startup here, naming the property, if an override does not fit
        }
    }

    private static void validateRule(String property, String nameOrPattern) {
        try {
            NamePattern.validate(nameOrPattern);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + ".[" + nameOrPattern + "]: " + e.getMessage(), e);
        }
    }

    /** The strategy of counters no rule matches. */
    StrategyFactory defaultFactory() {
        return CounterProperties.NO_OVERRIDES.factory("", defaultStrategy, optimistic, sharded, node, buffered, deltaLog, monotonic);
    }

    /** The strategy of the counters a rule under {@code counters.counters} names. */
    StrategyFactory factory(String nameOrPattern) {
        return counters.get(nameOrPattern).factory(nameOrPattern, defaultStrategy, optimistic, sharded, node,
                buffered, deltaLog, monotonic);
    }

    /**
     * Settings of one sequence, or of the sequences matching a pattern; sequences not listed use the defaults.
     *
     * @param mode Block (numbers from memory, reserved a block at a time) or gapless (one transaction per number)
     * @param blockSize Numbers reserved per database round trip in block mode
     * @param start The first number
     * @param increment The distance between numbers
     * @param maxValue The largest number; past it, SequenceExhaustedException
     */
    public record SequenceProperties(@DefaultValue("block") SequenceSettings.Mode mode,
            @DefaultValue("1000") int blockSize, @DefaultValue("1") long start, @DefaultValue("1") long increment,
            @DefaultValue("9223372036854775806") long maxValue) {

        public SequenceProperties {
            new SequenceSettings(mode, blockSize, start, increment, maxValue);
        }

        SequenceSettings settings() {
            return new SequenceSettings(mode, blockSize, start, increment, maxValue);
        }
    }

    /** The strategies that can be chosen in configuration. */
    public enum StrategyType {
        /** One row per counter, one atomic upsert per increment. */
        ATOMIC,
        /** Read, compare-and-set with a version, retry conflicts; concurrent increments in a JVM share attempts. */
        OPTIMISTIC,
        /** N rows per counter, an increment writes one, a read sums them. */
        SHARDED,
        /** One row per application node (G-Counter or PN-Counter). */
        NODE,
        /** In-memory adders flushed in one transaction per interval, exactly once. */
        BUFFERED,
        /** One row per increment, folded by periodic recounts. */
        DELTA_LOG,
        /** A cached value persisted as the maximum over shards; only grows. */
        MONOTONIC;

        /** The name as written in configuration: {@code delta-log}. */
        String configName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }
    }

    /**
     * Settings of one counter, or of the counters matching a pattern: its strategy, and any of that strategy's
     * settings to change from the ones under {@code counters.<strategy>.*}.
     *
     * @param strategy The counter's strategy; unset, the default strategy
     * @param shards Sharded: the shard count a counter starts with; monotonic: rows holding the durable maximum
     * @param selection Sharded: how an increment picks its shard (random, or thread)
     * @param cachedTotalExpiry Sharded: reads come from a local cached total that expires after this long
     * @param maxAttempts Optimistic: attempts before an increment fails with CounterContentionException
     * @param flushInterval Buffered: how often pending increments are written, at the latest
     * @param flushThreshold Buffered: a flush starts early once this many increments are pending
     * @param maxPendingCounters Buffered: the most counters the buffer holds
     * @param decrements Node: whether negative deltas are allowed (PN-Counter) or refused (G-Counter)
     * @param recountAfter Delta-log: a recount is due once the folded value is older than this
     * @param recountAtDeltas Delta-log: a recount is due once this many deltas were appended since the last one
     * @param readFolded Delta-log: whether reads return the folded value only (possibly stale)
     * @param chanceToWrite Monotonic: probability that an increment writes its value, 0.0 to 1.0
     */
    public record CounterProperties(@Nullable StrategyType strategy, @Nullable Integer shards,
            @Nullable ShardSelection selection, @Nullable Duration cachedTotalExpiry, @Nullable Integer maxAttempts,
            @Nullable Duration flushInterval, @Nullable Long flushThreshold, @Nullable Integer maxPendingCounters,
            @Nullable Boolean decrements, @Nullable Duration recountAfter, @Nullable Long recountAtDeltas,
            @Nullable Boolean readFolded, @Nullable Double chanceToWrite) {

        /** No strategy chosen and no setting changed: the defaults. */
        static final CounterProperties NO_OVERRIDES = new CounterProperties(null, null, null, null, null, null, null,
                null, null, null, null, null, null);

        StrategyFactory factory(String key, StrategyType defaultStrategy, Optimistic optimistic, Sharded sharded,
                Node node, Buffered buffered, DeltaLog deltaLog, Monotonic monotonic) {
            StrategyType type = strategy != null ? strategy : defaultStrategy;
            String property = "counters.counters.[" + key + "].";
            onlyFor(property, "shards", shards, type, StrategyType.SHARDED, StrategyType.MONOTONIC);
            onlyFor(property, "selection", selection, type, StrategyType.SHARDED);
            onlyFor(property, "cached-total-expiry", cachedTotalExpiry, type, StrategyType.SHARDED);
            onlyFor(property, "max-attempts", maxAttempts, type, StrategyType.OPTIMISTIC);
            onlyFor(property, "flush-interval", flushInterval, type, StrategyType.BUFFERED);
            onlyFor(property, "flush-threshold", flushThreshold, type, StrategyType.BUFFERED);
            onlyFor(property, "max-pending-counters", maxPendingCounters, type, StrategyType.BUFFERED);
            onlyFor(property, "decrements", decrements, type, StrategyType.NODE);
            onlyFor(property, "recount-after", recountAfter, type, StrategyType.DELTA_LOG);
            onlyFor(property, "recount-at-deltas", recountAtDeltas, type, StrategyType.DELTA_LOG);
            onlyFor(property, "read-folded", readFolded, type, StrategyType.DELTA_LOG);
            onlyFor(property, "chance-to-write", chanceToWrite, type, StrategyType.MONOTONIC);
            try {
                return switch (type) {
                    case ATOMIC -> Strategies.atomic();
                    case OPTIMISTIC -> Strategies.optimistic(maxAttempts == null ? optimistic.settings()
                            : optimistic.settings().withMaxAttempts(maxAttempts));
                    case SHARDED -> {
                        ShardedSettings settings = sharded.settings();
                        settings = shards == null ? settings : settings.withShards(shards);
                        settings = selection == null ? settings : settings.withSelection(selection);
                        settings = cachedTotalExpiry == null ? settings
                                : settings.withCachedTotalExpiry(cachedTotalExpiry);
                        yield Strategies.sharded(settings);
                    }
                    case NODE -> Strategies.node(decrements == null ? node.settings()
                            : node.settings().withDecrements(decrements));
                    case BUFFERED -> {
                        BufferedSettings settings = buffered.settings();
                        settings = flushInterval == null ? settings : settings.withFlushInterval(flushInterval);
                        settings = flushThreshold == null ? settings : settings.withFlushThreshold(flushThreshold);
                        settings = maxPendingCounters == null ? settings
                                : settings.withMaxPendingCounters(maxPendingCounters);
                        yield Strategies.buffered(settings);
                    }
                    case DELTA_LOG -> {
                        DeltaLogSettings settings = deltaLog.settings();
                        settings = recountAfter == null ? settings : settings.withRecountAfter(recountAfter);
                        settings = recountAtDeltas == null ? settings : settings.withRecountAtDeltas(recountAtDeltas);
                        settings = readFolded == null ? settings : settings.withReadFolded(readFolded);
                        yield Strategies.deltaLog(settings);
                    }
                    case MONOTONIC -> {
                        MonotonicSettings settings = monotonic.settings();
                        settings = shards == null ? settings : settings.withShards(shards);
                        settings = chanceToWrite == null ? settings : settings.withChanceToWrite(chanceToWrite);
                        yield Strategies.monotonic(settings);
                    }
                };
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(property + "*: " + e.getMessage(), e);
            }
        }

        private static void onlyFor(String property, String name, @Nullable Object value, StrategyType type,
                StrategyType... appliesTo) {
            if (value != null && !List.of(appliesTo).contains(type)) {
                throw new IllegalArgumentException(property + name + " is a setting of the "
                        + String.join(" or ", List.of(appliesTo).stream().map(StrategyType::configName).toList())
                        + " strategy, but these counters use the " + type.configName() + " strategy");
            }
        }
    }

    /**
     * Settings of the optimistic strategy.
     *
     * @param maxAttempts Attempts before an increment fails with CounterContentionException (nothing written)
     * @param initialBackoff Wait after the first conflict; it doubles per attempt, with jitter
     * @param maxBackoff Longest wait between two attempts
     */
    public record Optimistic(@DefaultValue("10") int maxAttempts, @DefaultValue("2ms") Duration initialBackoff,
            @DefaultValue("200ms") Duration maxBackoff) {

        public Optimistic {
            settings(maxAttempts, initialBackoff, maxBackoff);
        }

        OptimisticSettings settings() {
            return settings(maxAttempts, initialBackoff, maxBackoff);
        }

        private static OptimisticSettings settings(int maxAttempts, Duration initialBackoff, Duration maxBackoff) {
            return new OptimisticSettings(maxAttempts, initialBackoff, maxBackoff);
        }
    }

    /**
     * Settings of the sharded strategy.
     *
     * @param shards Shard count a counter starts with, 1 to 1024; a larger persisted count wins
     * @param selection How an increment picks its shard: random, or thread (a shard per thread)
     * @param cachedTotalExpiry When set, reads come from a local cached total that expires after this long; unset
     *     reads the shards every time
     * @param shardCountRefresh How often a node re-reads a counter's persisted shard count
     */
    public record Sharded(@DefaultValue("16") int shards, @DefaultValue("random") ShardSelection selection,
            @Nullable Duration cachedTotalExpiry, @DefaultValue("10s") Duration shardCountRefresh) {

        public Sharded {
            new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh);
        }

        ShardedSettings settings() {
            return new ShardedSettings(shards, selection, cachedTotalExpiry, shardCountRefresh);
        }
    }

    /**
     * Settings of the node strategy.
     *
     * @param id This application node's id (1 to 40 letters, digits, '.', '_', '-'); unset generates one per start
     * @param decrements Whether negative deltas are allowed (PN-Counter) or refused (G-Counter)
     * @param leaseTtl How long the claim on the node id lasts without renewal (H2); on MariaDB, MySQL and PostgreSQL the
     *     claim is a database session lock, checked every third of this
     */
    public record Node(@Nullable String id, @DefaultValue("true") boolean decrements,
            @DefaultValue("30s") Duration leaseTtl) {

        public Node {
            new NodeSettings(id, decrements, leaseTtl);
        }

        NodeSettings settings() {
            return new NodeSettings(id, decrements, leaseTtl);
        }
    }

    /**
     * Settings of the buffered strategy.
     *
     * @param flushInterval How often pending increments are written, at the latest
     * @param flushThreshold A flush starts early once this many increments are pending
     * @param maxPendingCounters The most counters the buffer holds; then 'when-full' applies
     * @param whenFull Fail (refuse at once) or block (wait up to 'block-timeout' for room)
     * @param blockTimeout How long 'when-full: block' waits
     * @param shutdownTimeout How long closing keeps trying to write what is pending
     * @param keyRetention How long the keys of applied flushes are kept (longer than any store outage)
     */
    public record Buffered(@DefaultValue("1s") Duration flushInterval, @DefaultValue("100000") long flushThreshold,
            @DefaultValue("100000") int maxPendingCounters,
            @DefaultValue("fail") BufferedSettings.WhenFull whenFull, @DefaultValue("1s") Duration blockTimeout,
            @DefaultValue("30s") Duration shutdownTimeout, @DefaultValue("7d") Duration keyRetention) {

        public Buffered {
            new BufferedSettings(flushInterval, flushThreshold, maxPendingCounters, whenFull, blockTimeout,
                    shutdownTimeout, keyRetention);
        }

        BufferedSettings settings() {
            return new BufferedSettings(flushInterval, flushThreshold, maxPendingCounters, whenFull, blockTimeout,
                    shutdownTimeout, keyRetention);
        }
    }

    /**
     * Settings of the delta-log strategy.
     *
     * @param recountAfter A recount is due once the folded value is older than this
     * @param recountAtDeltas A recount is due once this many deltas were appended since the last one
     * @param readFolded Whether reads return the folded value only (possibly stale)
     * @param appendAttempts How many times an append is tried (retries reuse the delta's id)
     * @param foldedRetention How long folded deltas are kept so that late retries of their appends are recognised
     */
    public record DeltaLog(@DefaultValue("1s") Duration recountAfter, @DefaultValue("1000") long recountAtDeltas,
            @DefaultValue("false") boolean readFolded, @DefaultValue("5") int appendAttempts,
            @DefaultValue("10m") Duration foldedRetention) {

        public DeltaLog {
            new DeltaLogSettings(recountAfter, recountAtDeltas, readFolded, appendAttempts, foldedRetention);
        }

        DeltaLogSettings settings() {
            return new DeltaLogSettings(recountAfter, recountAtDeltas, readFolded, appendAttempts, foldedRetention);
        }
    }

    /**
     * Settings of the monotonic strategy.
     *
     * @param shards Rows that hold the durable maximum, 1 to 999
     * @param chanceToWrite Probability that an increment writes its value, 0.0 to 1.0 (1.0: every value is durable)
     */
    public record Monotonic(@DefaultValue("20") int shards, @DefaultValue("1.0") double chanceToWrite) {

        public Monotonic {
            new MonotonicSettings(shards, chanceToWrite);
        }

        MonotonicSettings settings() {
            return new MonotonicSettings(shards, chanceToWrite);
        }
    }

    /** When the library's own Flyway migrations run at startup. */
    public enum InitializeSchema {
        /** Only on an embedded (in-memory) database. */
        EMBEDDED,
        /** On every database; the migrations have their own history table and are safe to run on every start. */
        ALWAYS,
        /** Never: the tables are created by other means (the README shows the DDL). */
        NEVER
    }

    /**
     * Storage in the application's {@code DataSource}.
     *
     * @param tablePrefix Prefix for the library's table names: empty, or a letter followed by letters, digits and
     *     underscores, at most 32 characters
     * @param initializeSchema When to create and upgrade the library's tables with its Flyway migrations
     * @param joinTransactions Whether atomic and optimistic increments and gapless sequence numbers take part in
     *     the caller's Spring transaction on the same DataSource (rolled back with it); false runs every write in a
     *     transaction of its own
     */
    public record Jdbc(@DefaultValue("") String tablePrefix, @DefaultValue("embedded") InitializeSchema initializeSchema,
            @DefaultValue("true") boolean joinTransactions) {
    }
}
