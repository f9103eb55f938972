package dev.counters.spring.boot;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.WindowSettings;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.sequence.SequenceSettings;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.Strategies;
import dev.counters.strategy.StrategyFactory;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Configuration of counters, under {@code counters.*}. Each strategy's settings form one group
 * ({@code counters.sharded.*}); a rule under {@code counters.counters} chooses a strategy and may override any setting
 * of that strategy's group ({@code counters.counters.[page-views.*].sharded.shards}). A setting left unset takes the
 * value of the level above: the rule, then the group, then the strategy's defaults in core ({@code ShardedSettings
 * .defaults()}), which are the only place defaults are written. Values are checked while they are bound, so a bad
 * one fails startup with a message naming the property; a property this class does not know fails it too, so a typo
 * is not silently ignored.
 *
 * @param enabled Whether to auto-configure counters at all
 * @param store Where counters are kept: 'jdbc', the application's DataSource; 'memory', this JVM only (for tests)
 * @param defaultStrategy The strategy of every counter not configured otherwise
 * @param keyRetention How long an idempotency key is remembered: a repeat within it writes nothing (default 1 day, at
 *     least 1 minute)
 * @param counters Rules for particular counters, by exact name or by pattern ('*' any run of characters, '?' one);
 *     in YAML, write a key with dots or wildcards in brackets: '"[orders.*]"'
 * @param optimistic Settings of the optimistic strategy
 * @param sharded Settings of the sharded strategy
 * @param node Settings of the node strategy
 * @param buffered Settings of the buffered strategy
 * @param deltaLog Settings of the delta-log strategy
 * @param monotonic Settings of the monotonic strategy
 * @param sequences Settings of particular sequences, by exact name or pattern
 * @param jdbc Where and how counters are stored in the application's database
 * @param redis The shared caches on Redis, when counters-redis and Spring Data Redis are present
 * @param datasource A connection pool of the library's own, instead of the application's DataSource
 */
@ConfigurationProperties(prefix = "counters", ignoreUnknownFields = false)
public record CountersProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("jdbc") Store store,
        @DefaultValue("atomic") StrategyType defaultStrategy,
        @Nullable Duration keyRetention,
        Map<String, CounterProperties> counters,
        @Nullable Optimistic optimistic,
        @Nullable Sharded sharded,
        @Nullable Node node,
        @Nullable Buffered buffered,
        @Nullable DeltaLog deltaLog,
        @Nullable Monotonic monotonic,
        Map<String, SequenceProperties> sequences,
        @DefaultValue Jdbc jdbc,
        @DefaultValue Redis redis,
        @Nullable Datasource datasource) implements Groups {

    private static final CounterProperties NO_RULE = new CounterProperties(null, null, null, null, null, null, null,
            null, null, null, null, null);

    public CountersProperties {
        counters = counters == null ? Map.of() : new LinkedHashMap<>(counters);
        sequences = sequences == null ? Map.of() : new LinkedHashMap<>(sequences);
        // Everything is checked here, while binding, so that a failure names the property. (The record's fields are
        // not assigned yet: the groups are read from the parameters.)
        Groups top = new CounterProperties(null, optimistic, sharded, node, buffered, deltaLog, monotonic, null, null,
                null, null, null);
        for (StrategyType type : StrategyType.values()) {
            Group<?> group = type.group(top);
            if (group != null) {
                checked("counters." + type.configName(), () -> type.factory(group, null, SharedCaches.UNCHECKED));
            }
        }
        for (Map.Entry<String, CounterProperties> rule : counters.entrySet()) {
            String property = "counters.counters.[" + rule.getKey() + "]";
            checked(property, () -> CounterName.validatePattern(rule.getKey()));
            checkRule(property, top, rule.getValue(), defaultStrategy);
        }
        if (keyRetention != null) {
            Duration retention = keyRetention;
            // The builder's own check, so that the rule has one home; the store is only there to make a builder.
            checked("counters.key-retention", () -> CounterService.builder(new InMemoryCounterStore())
                    .keyRetention(retention));
        }
        for (Map.Entry<String, SequenceProperties> sequence : sequences.entrySet()) {
            String property = "counters.sequences.[" + sequence.getKey() + "]";
            checked(property, () -> CounterName.validatePattern(sequence.getKey()));
            checked(property, sequence.getValue()::settings);
        }
    }

    /** The strategy of counters no rule matches. */
    StrategyFactory defaultFactory(SharedCaches caches) {
        return factory(NO_RULE, caches);
    }

    /** The strategy of the counters a rule under {@code counters.counters} names. */
    StrategyFactory factory(String nameOrPattern, SharedCaches caches) {
        return factory(counters.get(nameOrPattern), caches);
    }

    private StrategyFactory factory(CounterProperties rule, SharedCaches caches) {
        StrategyType type = rule.strategy() != null ? rule.strategy() : defaultStrategy;
        return type.factory(type.group(this), type.group(rule), caches);
    }

    /** The longest any buffered strategy takes to write what is pending when the application stops. */
    Duration shutdownTimeout() {
        Duration longest = StrategyType.resolve(BufferedSettings.defaults(), buffered, null).shutdownTimeout();
        for (CounterProperties rule : counters.values()) {
            Duration timeout = StrategyType.resolve(BufferedSettings.defaults(), buffered, rule.buffered())
                    .shutdownTimeout();
            longest = timeout.compareTo(longest) > 0 ? timeout : longest;
        }
        return longest;
    }

    private static void checkRule(String property, Groups top, CounterProperties rule, StrategyType defaultStrategy) {
        StrategyType type = rule.strategy() != null ? rule.strategy() : defaultStrategy;
        for (StrategyType other : StrategyType.values()) {
            if (other != type && other.group(rule) != null) {
                throw new IllegalArgumentException(property + "." + other.configName() + " holds settings of the "
                        + other.configName() + " strategy, but these counters use the " + type.configName()
                        + " strategy");
            }
        }
        checked(property + "." + type.configName(),
                () -> type.factory(type.group(top), type.group(rule), SharedCaches.UNCHECKED));
        checked(property + ".window", rule::windows);
        if (rule.expireAfterIdle() != null) {
            Duration idle = rule.expireAfterIdle();
            if (type == StrategyType.MONOTONIC) {
                throw new IllegalArgumentException(property + ".expire-after-idle: monotonic counters cannot expire,"
                        + " their values would repeat");
            }
            checked(property + ".expire-after-idle", () -> CounterService.builder(new InMemoryCounterStore())
                    .expireAfterIdle("check", idle));
        }
    }

    private static void checked(String property, Runnable check) {
        try {
            check.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(property + ": " + e.getMessage(), e);
        }
    }

    private static <T> T or(@Nullable T value, T inherited) {
        return value != null ? value : inherited;
    }

    /**
     * A rule for one counter, or for the counters matching a pattern: its strategy, and any of that strategy's
     * settings to change from the ones under {@code counters.<strategy>.*}. Only the chosen strategy's group may be
     * set.
     *
     * @param strategy The counters' strategy; unset, the default strategy
     * @param optimistic Optimistic settings that differ for these counters
     * @param sharded Sharded settings that differ for these counters
     * @param node Node settings that differ for these counters
     * @param buffered Buffered settings that differ for these counters
     * @param deltaLog Delta-log settings that differ for these counters
     * @param monotonic Monotonic settings that differ for these counters
     * @param window Time windows: each increment lands in the window of its time (1s to 1d, dividing a day: 1m, 1h,
     *     1d); unset, no windows
     * @param retention How long a window is kept after it ends (default 60 windows)
     * @param retainedWindows How many windows are kept, instead of a retention
     * @param zone The zone whose midnight windows are aligned to (default UTC)
     * @param expireAfterIdle Remove these counters once nobody wrote them for this long (at least 1m); unset, never
     */
    public record CounterProperties(@Nullable StrategyType strategy, @Nullable Optimistic optimistic,
            @Nullable Sharded sharded, @Nullable Node node, @Nullable Buffered buffered, @Nullable DeltaLog deltaLog,
            @Nullable Monotonic monotonic, @Nullable Duration window, @Nullable Duration retention,
            @Nullable Integer retainedWindows, @Nullable ZoneId zone, @Nullable Duration expireAfterIdle)
            implements Groups {

        /** The rule's windows, if it has any. */
        Optional<WindowSettings> windows() {
            if (window == null) {
                if (retention != null || retainedWindows != null || zone != null) {
                    throw new IllegalArgumentException("retention, retained-windows and zone apply to windows: set"
                            + " window too");
                }
                return Optional.empty();
            }
            if (retention != null && retainedWindows != null) {
                throw new IllegalArgumentException("set retention or retained-windows, not both");
            }
            WindowSettings settings = WindowSettings.of(window);
            settings = retention != null ? settings.withRetention(retention) : settings;
            settings = retainedWindows != null ? settings.withRetainedWindows(retainedWindows) : settings;
            return Optional.of(zone != null ? settings.withZone(zone) : settings);
        }
    }

    /** The strategies that can be chosen in configuration, each with its settings group. */
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

        /** This strategy's settings group at one level of configuration, null when unset there. */
        @Nullable Group<?> group(Groups level) {
            return switch (this) {
                case ATOMIC -> null; // nothing to configure
                case OPTIMISTIC -> level.optimistic();
                case SHARDED -> level.sharded();
                case NODE -> level.node();
                case BUFFERED -> level.buffered();
                case DELTA_LOG -> level.deltaLog();
                case MONOTONIC -> level.monotonic();
            };
        }

        /** The factory of this strategy with the core defaults, overridden by a group, then by a rule's group. */
        StrategyFactory factory(@Nullable Group<?> group, @Nullable Group<?> rule, SharedCaches caches) {
            return switch (this) {
                case ATOMIC -> Strategies.atomic();
                case OPTIMISTIC -> Strategies.optimistic(resolve(OptimisticSettings.defaults(), group, rule));
                case SHARDED -> {
                    ShardedSettings settings = resolve(ShardedSettings.defaults(), group, rule);
                    TotalCache totals = caches.totals(cacheLocation(group, rule), "sharded");
                    yield totals == null ? Strategies.sharded(settings) : Strategies.sharded(settings, totals);
                }
                case NODE -> Strategies.node(resolve(NodeSettings.defaults(), group, rule));
                case BUFFERED -> Strategies.buffered(resolve(BufferedSettings.defaults(), group, rule));
                case DELTA_LOG -> Strategies.deltaLog(resolve(DeltaLogSettings.defaults(), group, rule));
                case MONOTONIC -> {
                    MonotonicSettings settings = resolve(MonotonicSettings.defaults(), group, rule);
                    MonotonicCache cache = caches.monotonic(cacheLocation(group, rule), "monotonic");
                    yield cache == null ? Strategies.monotonic(settings) : Strategies.monotonic(settings, cache);
                }
            };
        }

        /** The rule's cache setting, else its group's; null when neither says. */
        private static @Nullable CacheLocation cacheLocation(@Nullable Group<?> group, @Nullable Group<?> rule) {
            CacheLocation ruled = rule instanceof Cached cached ? cached.cache() : null;
            return ruled != null ? ruled : group instanceof Cached cached ? cached.cache() : null;
        }

        @SuppressWarnings("unchecked")
        static <S> S resolve(S defaults, @Nullable Group<?> group, @Nullable Group<?> rule) {
            S settings = defaults;
            settings = group == null ? settings : ((Group<S>) group).over(settings);
            return rule == null ? settings : ((Group<S>) rule).over(settings);
        }
    }

    /**
     * Settings of the optimistic strategy.
     *
     * @param maxAttempts Attempts before an increment fails with CounterContentionException (nothing written)
     * @param initialBackoff Wait after the first conflict; it doubles per attempt, with jitter
     * @param maxBackoff Longest wait between two attempts
     */
    public record Optimistic(@Nullable Integer maxAttempts, @Nullable Duration initialBackoff,
            @Nullable Duration maxBackoff) implements Group<OptimisticSettings> {

        @Override
        public OptimisticSettings over(OptimisticSettings inherited) {
            return new OptimisticSettings(or(maxAttempts, inherited.maxAttempts()),
                    or(initialBackoff, inherited.initialBackoff()), or(maxBackoff, inherited.maxBackoff()));
        }
    }

    /** Where a strategy keeps its cache: in this JVM, or in Redis, shared by every node ({@code counters-redis}). */
    public enum CacheLocation {
        LOCAL, REDIS
    }

    /**
     * Settings of the sharded strategy.
     *
     * @param shards Shard count a counter starts with, 1 to 1024; a larger persisted count wins
     * @param selection How an increment picks its shard: random, or thread (a shard per thread)
     * @param cache Where cached totals live: local (this JVM) or redis (shared by every node); by default redis when
     *     counters-redis and a Redis connection are present
     * @param cachedTotalExpiry When set, reads come from a cached total that expires after this long; unset reads
     *     the shards every time
     * @param shardCountRefresh How often a node re-reads a counter's persisted shard count
     */
    public record Sharded(@Nullable Integer shards, ShardedSettings.@Nullable Selection selection,
            @Nullable Duration cachedTotalExpiry, @Nullable Duration shardCountRefresh, @Nullable CacheLocation cache)
            implements Group<ShardedSettings>, Cached {

        @Override
        public ShardedSettings over(ShardedSettings inherited) {
            return new ShardedSettings(or(shards, inherited.shards()), or(selection, inherited.selection()),
                    cachedTotalExpiry != null ? cachedTotalExpiry : inherited.cachedTotalExpiry(),
                    or(shardCountRefresh, inherited.shardCountRefresh()));
        }
    }

    /**
     * Settings of the node strategy.
     *
     * @param id This application node's id (1 to 40 letters, digits, '.', '_', '-'); unset generates one per start
     * @param decrements Whether negative deltas are allowed (PN-Counter) or refused (G-Counter)
     * @param leaseTtl How long the claim on the node id lasts without renewal (H2); on MariaDB, MySQL and PostgreSQL
     * the claim is a database session lock, checked every third of this
     */
    public record Node(@Nullable String id, @Nullable Boolean decrements, @Nullable Duration leaseTtl)
            implements Group<NodeSettings> {

        @Override
        public NodeSettings over(NodeSettings inherited) {
            return new NodeSettings(id != null ? id : inherited.nodeId(), or(decrements, inherited.decrements()),
                    or(leaseTtl, inherited.leaseTtl()));
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
    public record Buffered(@Nullable Duration flushInterval, @Nullable Long flushThreshold,
            @Nullable Integer maxPendingCounters, BufferedSettings.@Nullable WhenFull whenFull,
            @Nullable Duration blockTimeout, @Nullable Duration shutdownTimeout, @Nullable Duration keyRetention)
            implements Group<BufferedSettings> {

        @Override
        public BufferedSettings over(BufferedSettings inherited) {
            return new BufferedSettings(or(flushInterval, inherited.flushInterval()),
                    or(flushThreshold, inherited.flushThreshold()),
                    or(maxPendingCounters, inherited.maxPendingCounters()), or(whenFull, inherited.whenFull()),
                    or(blockTimeout, inherited.blockTimeout()), or(shutdownTimeout, inherited.shutdownTimeout()),
                    or(keyRetention, inherited.keyRetention()));
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
    public record DeltaLog(@Nullable Duration recountAfter, @Nullable Long recountAtDeltas,
            @Nullable Boolean readFolded, @Nullable Integer appendAttempts, @Nullable Duration foldedRetention)
            implements Group<DeltaLogSettings> {

        @Override
        public DeltaLogSettings over(DeltaLogSettings inherited) {
            return new DeltaLogSettings(or(recountAfter, inherited.recountAfter()),
                    or(recountAtDeltas, inherited.recountAtDeltas()), or(readFolded, inherited.readFolded()),
                    or(appendAttempts, inherited.appendAttempts()), or(foldedRetention, inherited.foldedRetention()));
        }
    }

    /**
     * Settings of the monotonic strategy.
     *
     * @param shards Rows that hold the durable maximum, 1 to 999
     * @param chanceToWrite Probability that an increment writes its value, 0.0 to 1.0 (1.0: every value is durable)
     * @param cache Where the current values live: local (this JVM; values repeat across nodes) or redis (shared by
     *     every node); by default redis when counters-redis and a Redis connection are present
     */
    public record Monotonic(@Nullable Integer shards, @Nullable Double chanceToWrite, @Nullable CacheLocation cache)
            implements Group<MonotonicSettings>, Cached {

        @Override
        public MonotonicSettings over(MonotonicSettings inherited) {
            return new MonotonicSettings(or(shards, inherited.shards()),
                    or(chanceToWrite, inherited.chanceToWrite()));
        }
    }

    /**
     * Settings of one sequence, or of the sequences matching a pattern; sequences not listed use the defaults.
     *
     * @param mode Block (numbers from memory, reserved a block at a time) or gapless (one transaction per number)
     * @param blockSize Numbers reserved per database round trip in block mode, at first and after an idle spell
     * @param maxBlockSize The most numbers one round trip reserves: blocks double up to it while they go fast
     * @param start The first number
     * @param increment The distance between numbers
     * @param maxValue The largest number; past it, SequenceExhaustedException
     */
    public record SequenceProperties(SequenceSettings.@Nullable Mode mode, @Nullable Integer blockSize,
            @Nullable Integer maxBlockSize, @Nullable Long start, @Nullable Long increment, @Nullable Long maxValue) {

        SequenceSettings settings() {
            SequenceSettings defaults = SequenceSettings.defaults();
            long step = or(increment, defaults.increment());
            int first = or(blockSize, defaults.blockSize());
            return new SequenceSettings(or(mode, defaults.mode()), first,
                    or(maxBlockSize, Math.max(first, defaults.maxBlockSize())), or(start, defaults.start()), step,
                    or(maxValue, Long.MAX_VALUE - step));
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

    /** Where counters are kept. */
    public enum Store {
        /**
         * In the application's {@code DataSource} (or the one marked {@link CountersDataSource}, or a pool of the
         * library's own from {@code counters.datasource.*}).
         */
        JDBC,
        /** In this JVM's memory, lost when it stops: for tests that need no database. */
        MEMORY
    }

    /**
     * A connection pool of the library's own (HikariCP), built as Boot builds the application's from
     * {@code spring.datasource.*}. A DataSource bean marked {@link CountersDataSource} comes first.
     *
     * @param url JDBC URL of the database counters use; setting it gives counters a pool of their own
     * @param username Login username of the database
     * @param password Login password of the database
     * @param driverClassName Fully qualified name of the JDBC driver; by default detected from the URL
     * @param hikari Hikari settings of the pool, as under 'spring.datasource.hikari' (for example maximum-pool-size,
     *     connection-timeout); its pool name is 'counters' unless set
     */
    public record Datasource(@Nullable String url, @Nullable String username, @Nullable String password,
            @Nullable String driverClassName, Map<String, String> hikari) {
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

    /**
     * The shared caches on Redis ({@code counters-redis}), through the application's Spring Data Redis connection.
     *
     * @param keyPrefix Prefix of every key the caches write, to keep them apart from the application's own keys
     * @param loadTimeout Longest wait for another node's load of a monotonic counter's value from the database
     */
    public record Redis(@DefaultValue("counters:") String keyPrefix, @DefaultValue("10s") Duration loadTimeout) {
    }
}

/** A settings group that says where its strategy's shared cache lives. */
interface Cached {

    CountersProperties.@Nullable CacheLocation cache();
}

/** The strategies' settings groups at one level of configuration: the top, or one rule. */
interface Groups {

    CountersProperties.@Nullable Optimistic optimistic();

    CountersProperties.@Nullable Sharded sharded();

    CountersProperties.@Nullable Node node();

    CountersProperties.@Nullable Buffered buffered();

    CountersProperties.@Nullable DeltaLog deltaLog();

    CountersProperties.@Nullable Monotonic monotonic();
}

/** One strategy's settings as configured: the values set override the inherited ones, the others keep them. */
interface Group<S> {

    S over(S inherited);
}
