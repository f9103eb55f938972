package dev.counters.spring.boot;

import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardSelection;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of counters, under {@code counters.*}. Values are checked while they are bound, so a bad one fails
 * startup with a message naming the property.
 *
 * @param defaultStrategy the strategy of every counter not configured otherwise
 * @param counters the strategy of particular counters, by exact name or by pattern ({@code *} any run of
 *     characters, {@code ?} one); in YAML, write a key with dots or wildcards in brackets: {@code "[orders.*]"}
 * @param optimistic settings of the optimistic strategy
 * @param sharded settings of the sharded strategy
 * @param node settings of the node strategy
 * @param buffered settings of the buffered strategy
 * @param deltaLog settings of the delta-log strategy
 * @param monotonic settings of the monotonic strategy
 * @param sequences settings of particular sequences, by exact name or pattern
 * @param jdbc where and how counters are stored in the application's database
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
    }

    /**
     * Settings of one sequence, or of the sequences matching a pattern; sequences not listed use the defaults.
     *
     * @param mode block (numbers from memory, reserved a block at a time) or gapless (one transaction per number)
     * @param blockSize numbers reserved per database round trip in block mode
     * @param start the first number
     * @param increment the distance between numbers
     * @param maxValue the largest number; past it, SequenceExhaustedException
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
        MONOTONIC
    }

    /**
     * Settings of one counter, or of the counters matching a pattern.
     *
     * @param strategy the counter's strategy
     */
    public record CounterProperties(StrategyType strategy) {
    }

    /**
     * Settings of the optimistic strategy.
     *
     * @param maxAttempts attempts before an increment fails with CounterContentionException (nothing written)
     * @param initialBackoff wait after the first conflict; it doubles per attempt, with jitter
     * @param maxBackoff longest wait between two attempts
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
     * @param shards shard count a counter starts with, 1 to 1024; a larger persisted count wins
     * @param selection how an increment picks its shard: random, or thread (a shard per thread)
     * @param cachedTotalExpiry when set, reads come from a local cached total that expires after this long; unset
     *     reads the shards every time
     * @param shardCountRefresh how often a node re-reads a counter's persisted shard count
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
     * @param id this application node's id (1 to 40 letters, digits, '.', '_', '-'); unset generates one per start
     * @param decrements whether negative deltas are allowed (PN-Counter) or refused (G-Counter)
     * @param leaseTtl how long the claim on the node id lasts without renewal
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
     * @param flushInterval how often pending increments are written, at the latest
     * @param flushThreshold a flush starts early once this many increments are pending
     * @param maxPendingCounters the most counters the buffer holds; then {@code when-full} applies
     * @param whenFull fail (refuse at once) or block (wait up to {@code block-timeout} for room)
     * @param blockTimeout how long {@code when-full: block} waits
     * @param shutdownTimeout how long closing keeps trying to write what is pending
     * @param keyRetention how long the keys of applied flushes are kept (longer than any store outage)
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
     * @param recountAfter a recount is due once the folded value is older than this
     * @param recountAtDeltas a recount is due once this many deltas were appended since the last one
     * @param readFolded whether reads return the folded value only (possibly stale)
     * @param appendAttempts how many times an append is tried (retries reuse the delta's id)
     * @param foldedRetention how long folded deltas are kept so that late retries of their appends are recognised
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
     * @param shards rows that hold the durable maximum, 1 to 999
     * @param chanceToWrite probability that an increment writes its value, 0.0 to 1.0 (1.0: every value is durable)
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
     * @param tablePrefix prefix for the library's table names: empty, or a letter followed by letters, digits and
     *     underscores, at most 32 characters
     * @param initializeSchema when to create and upgrade the library's tables with its Flyway migrations
     * @param joinTransactions whether atomic and optimistic increments and gapless sequence numbers take part in
     *     the caller's Spring transaction on the same DataSource (rolled back with it); false runs every write in a
     *     transaction of its own
     */
    public record Jdbc(@DefaultValue("") String tablePrefix, @DefaultValue("embedded") InitializeSchema initializeSchema,
            @DefaultValue("true") boolean joinTransactions) {
    }
}
