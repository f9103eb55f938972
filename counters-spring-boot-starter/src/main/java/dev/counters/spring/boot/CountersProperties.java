package dev.counters.spring.boot;

import dev.counters.RateLimit;
import dev.counters.RateLimitRule;
import dev.counters.sequence.SequenceSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.ShardedSettings;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * Configuration of counters, under {@code counters.*}. Each strategy's settings form one group
 * ({@code counters.sharded.*}); a rule under {@code counters.counters} chooses a strategy and may override any setting
 * of that strategy's group ({@code counters.counters.[page-views.*].sharded.shards}). A setting left unset takes the
 * value of the level above: the rule, then the group, then the strategy's defaults in core ({@code ShardedSettings
 * .defaults()}), which are the only place defaults are written. This class only binds: {@code CounterRules} maps the
 * values to the service's rules and checks them, so that a bad one fails startup with a message naming the property;
 * a property this class does not know fails binding, so a typo is not silently ignored.
 *
 * @param enabled Whether to enable the auto-configuration of counters.
 * @param store Store that keeps the counters: 'jdbc' (the application's DataSource) or 'memory' (this JVM only, for
 *     tests).
 * @param defaultStrategy Strategy of every counter that no rule under 'counters.counters' matches.
 * @param keyRetention Time an idempotency key is remembered: a repeat within it writes nothing. At least 1 minute.
 * @param counters Rules for particular counters, by exact name or by pattern ('*' any run of characters, '?' one
 *     character; in YAML, a key with dots or wildcards in brackets: '"[orders.*]"'). A rule takes 'strategy', the
 *     settings group of that strategy to override ('optimistic', 'sharded', 'node', 'buffered', 'delta-log' or
 *     'monotonic' or 'bounded', for example 'sharded.shards'), 'min', 'max' and 'initial' of a bounded counter,
 *     'window', 'retention' or 'retained-windows', 'zone', 'expire-after-idle' and 'members'.
 * @param optimistic Settings of the optimistic strategy.
 * @param sharded Settings of the sharded strategy.
 * @param node Settings of the node strategy.
 * @param buffered Settings of the buffered strategy.
 * @param deltaLog Settings of the delta-log strategy.
 * @param monotonic Settings of the monotonic strategy.
 * @param bounded Settings of the bounded strategy. Its bounds are set per rule: 'min', 'max' and 'initial'.
 * @param sequences Settings of particular sequences, by exact name or pattern: 'mode', 'block-size',
 *     'max-block-size', 'start', 'increment' and 'max-value'.
 * @param jdbc Storage in the application's database.
 * @param redis Shared caches on Redis, when counters-redis and Spring Data Redis are present.
 * @param datasource Connection pool of the library's own, used instead of the application's DataSource.
 * @param rateLimits Rate limiters: their limits by name or pattern, what they do when the database fails, the limits
 *     of web routes, and the headers of limited responses.
 * @param failover What the store does after a change of the database's primary (docs/failover.md).
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
        @Nullable Bounded bounded,
        Map<String, SequenceProperties> sequences,
        @DefaultValue Jdbc jdbc,
        @DefaultValue Redis redis,
        @Nullable Datasource datasource,
        @DefaultValue RateLimits rateLimits,
        @DefaultValue Failover failover) {

    public CountersProperties {
        counters = counters == null ? Map.of() : new LinkedHashMap<>(counters);
        sequences = sequences == null ? Map.of() : new LinkedHashMap<>(sequences);
    }

    /**
     * A rule for one counter, or for the counters matching a pattern: its strategy, and any of that strategy's
     * settings to change from the ones under {@code counters.<strategy>.*}. Only the chosen strategy's group may be
     * set.
     *
     * @param strategy Strategy of these counters. Unset, the default strategy.
     * @param optimistic Optimistic settings that differ for these counters.
     * @param sharded Sharded settings that differ for these counters.
     * @param node Node settings that differ for these counters.
     * @param buffered Buffered settings that differ for these counters.
     * @param deltaLog Delta-log settings that differ for these counters.
     * @param monotonic Monotonic settings that differ for these counters.
     * @param bounded Bounded settings that differ for these counters.
     * @param min Lowest value of these counters (strategy 'bounded'): a change that would go below it is refused, and
     *     nothing is written. 0 for stock.
     * @param max Highest value of these counters (strategy 'bounded'): a change that would go above it is refused. The
     *     limit of a quota.
     * @param initial Value of a bounded counter when it is first used: the units in stock at the start. By default 0,
     *     or the bound nearest to 0.
     * @param window Length of the time windows each increment lands in, by its time: 1s to 1d, dividing a day (1m,
     *     1h, 1d). Unset, no windows.
     * @param retention Time a window is kept after it ends. By default 60 windows.
     * @param retainedWindows Number of windows kept, instead of a retention.
     * @param zone Zone whose midnight the windows are aligned to. By default UTC.
     * @param expireAfterIdle Idle time after which these counters are removed: at least 1m. Unset, never.
     * @param members Whether these counters count the members of a set (CounterService.members: the visitors who
     *     liked a post), changing only when a member is added or removed. Their strategy must be 'atomic', 'sharded'
     *     or 'node'; they take no increments, windows or idle expiry.
     */
    public record CounterProperties(
            @Nullable StrategyType strategy,
            @Nullable Optimistic optimistic,
            @Nullable Sharded sharded,
            @Nullable Node node,
            @Nullable Buffered buffered,
            @Nullable DeltaLog deltaLog,
            @Nullable Monotonic monotonic,
            @Nullable Bounded bounded,
            @Nullable Long min,
            @Nullable Long max,
            @Nullable Long initial,
            @Nullable Duration window,
            @Nullable Duration retention,
            @Nullable Integer retainedWindows,
            @Nullable ZoneId zone,
            @Nullable Duration expireAfterIdle,
            boolean members) {}

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
        MONOTONIC,
        /** A value kept within min and max, refusing changes beyond them; exact on a hot counter by escrow. */
        BOUNDED
    }

    /**
     * Settings of the optimistic strategy.
     *
     * @param maxAttempts Maximum number of attempts before an increment fails with CounterContentionException (nothing
     *     written).
     * @param initialBackoff Wait after the first conflict, doubled on each further attempt, with jitter.
     * @param maxBackoff Maximum wait between two attempts.
     */
    public record Optimistic(
            @Nullable Integer maxAttempts,
            @Nullable Duration initialBackoff,
            @Nullable Duration maxBackoff) {}

    /** Where a strategy keeps its cache: in this JVM, or in Redis, shared by every node ({@code counters-redis}). */
    public enum CacheLocation {
        LOCAL,
        REDIS
    }

    /**
     * Settings of the sharded strategy.
     *
     * @param shards Number of shards a counter starts with, 1 to 1024. A larger persisted count wins.
     * @param selection Shard an increment picks: 'random', or 'thread' (a fixed shard per thread).
     * @param cache Location of cached totals: 'local' (this JVM) or 'redis' (shared by every node). By default
     *     'redis' when counters-redis and a Redis connection are present.
     * @param cachedTotalExpiry Expiry of the cached total that reads are served from. Unset, reads sum the shards
     *     every time.
     * @param shardCountRefresh Interval at which a node re-reads a counter's persisted shard count.
     */
    public record Sharded(
            @Nullable Integer shards,
            ShardedSettings.@Nullable Selection selection,
            @Nullable Duration cachedTotalExpiry,
            @Nullable Duration shardCountRefresh,
            @Nullable CacheLocation cache) {}

    /**
     * Settings of the node strategy.
     *
     * @param id Id of this application node: 1 to 40 letters, digits, '.', '_' or '-'. Unset, one is generated at each
     *     start.
     * @param decrements Whether negative deltas are allowed (PN-Counter) rather than refused (G-Counter).
     * @param leaseTtl Time the claim on the node id lasts without renewal (H2). On MariaDB, MySQL and PostgreSQL the
     *     claim is a database session lock, checked every third of this.
     */
    public record Node(
            @Nullable String id,
            @Nullable Boolean decrements,
            @Nullable Duration leaseTtl) {}

    /**
     * Settings of the buffered strategy.
     *
     * @param flushInterval Maximum time between two writes of the pending increments.
     * @param flushThreshold Number of pending increments that starts a flush early.
     * @param maxPendingCounters Maximum number of counters the buffer holds, after which 'when-full' applies.
     * @param whenFull Behaviour when the buffer is full: 'fail' (refuse at once) or 'block' (wait up to
     *     'block-timeout' for room).
     * @param blockTimeout Maximum wait of 'when-full: block'.
     * @param shutdownTimeout Time closing keeps trying to write what is pending.
     * @param keyRetention Time the keys of applied flushes are kept: longer than any store outage.
     * @param flushLanes Maximum number of flushes in flight at once (1 to 16), each a transaction on a row of its own
     *     and a connection while it runs; lanes past the first start for durable increments only.
     */
    public record Buffered(
            @Nullable Duration flushInterval,
            @Nullable Long flushThreshold,
            @Nullable Integer maxPendingCounters,
            BufferedSettings.@Nullable WhenFull whenFull,
            @Nullable Duration blockTimeout,
            @Nullable Duration shutdownTimeout,
            @Nullable Duration keyRetention,
            @Nullable Integer flushLanes) {}

    /**
     * Settings of the delta-log strategy.
     *
     * @param recountAfter Age of the folded value after which a recount is due.
     * @param recountAtDeltas Number of deltas appended since the last recount after which a recount is due.
     * @param readFolded Whether reads return the folded value only (possibly stale).
     * @param appendAttempts Maximum number of attempts of an append. Retries reuse the delta's id.
     * @param foldedRetention Time folded deltas are kept, so that late retries of their appends are recognised.
     */
    public record DeltaLog(
            @Nullable Duration recountAfter,
            @Nullable Long recountAtDeltas,
            @Nullable Boolean readFolded,
            @Nullable Integer appendAttempts,
            @Nullable Duration foldedRetention) {}

    /**
     * Settings of the monotonic strategy.
     *
     * @param shards Number of rows that hold the durable maximum, 1 to 999.
     * @param chanceToWrite Probability that an increment writes its value, 0.0 to 1.0 (1.0: every value is durable).
     * @param cache Location of the current values: 'local' (this JVM; values repeat across nodes) or 'redis' (shared
     *     by every node). By default 'redis' when counters-redis and a Redis connection are present.
     */
    public record Monotonic(
            @Nullable Integer shards,
            @Nullable Double chanceToWrite,
            @Nullable CacheLocation cache) {}

    /**
     * Settings of the bounded strategy. A node's id and the lease on it are the node strategy's
     * ('counters.node.id', 'counters.node.lease-ttl').
     *
     * @param escrow Whether busy nodes take allowances of room from the shared pool row and change the counter within
     *     them in rows of their own. Off, every change is a guarded update of the pool row.
     * @param escrowAbove Rate of changes per second of one counter on one node above which the node takes an
     *     allowance.
     * @param refillHorizon Time an allowance lasts at the node's rate: refills are sized for it.
     * @param minRefill Fewest units a refill takes.
     * @param maxRefill Most units a refill takes.
     * @param giveBackAfter Idle time after which a node gives its allowance back to the pool.
     * @param sweepInterval Interval at which expired holds, and the allowances of nodes that died, go back to the
     *     pool.
     * @param maxHoldTtl Longest time a reservation may be held.
     */
    public record Bounded(
            @Nullable Boolean escrow,
            @Nullable Double escrowAbove,
            @Nullable Duration refillHorizon,
            @Nullable Long minRefill,
            @Nullable Long maxRefill,
            @Nullable Duration giveBackAfter,
            @Nullable Duration sweepInterval,
            @Nullable Duration maxHoldTtl) {}

    /**
     * Settings of one sequence, or of the sequences matching a pattern; sequences not listed use the defaults.
     *
     * @param mode Mode: 'block' (numbers from memory, reserved a block at a time) or 'gapless' (one transaction per
     *     number).
     * @param blockSize Number of numbers reserved per database round trip in block mode, at first and after an idle
     *     spell.
     * @param maxBlockSize Maximum number of numbers one round trip reserves: blocks double up to it while they go
     *     fast.
     * @param start First number.
     * @param increment Distance between two numbers.
     * @param maxValue Largest number. Past it, SequenceExhaustedException.
     */
    public record SequenceProperties(
            SequenceSettings.@Nullable Mode mode,
            @Nullable Integer blockSize,
            @Nullable Integer maxBlockSize,
            @Nullable Long start,
            @Nullable Long increment,
            @Nullable Long maxValue) {}

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
     * @param url JDBC URL of the database counters use. Setting it gives counters a pool of their own.
     * @param username Login username of the database.
     * @param password Login password of the database.
     * @param driverClassName Fully qualified name of the JDBC driver. Detected from the URL by default.
     * @param hikari Hikari settings of the pool, as under 'spring.datasource.hikari' (for example maximum-pool-size,
     *     connection-timeout). Its pool name is 'counters' unless set.
     */
    public record Datasource(
            @Nullable String url,
            @Nullable String username,
            @Nullable String password,
            @Nullable String driverClassName,
            Map<String, String> hikari) {}

    /**
     * Storage in the application's {@code DataSource}.
     *
     * @param tablePrefix Prefix of the library's table names: empty, or a letter followed by letters, digits and
     *     underscores, at most 32 characters.
     * @param initializeSchema Database initialization mode of the library's tables, created and upgraded by its Flyway
     *     migrations.
     * @param joinTransactions Whether atomic and optimistic increments and gapless sequence numbers take part in the
     *     caller's Spring transaction on the same DataSource (rolled back with it), rather than each run in a
     *     transaction of its own.
     */
    public record Jdbc(
            @DefaultValue("") String tablePrefix,
            @DefaultValue("embedded") DatabaseInitializationMode initializeSchema,
            @DefaultValue("true") boolean joinTransactions) {}

    /**
     * The protection against a change of the database's primary that lost commits.
     *
     * @param skipAhead Values a sequence (in its own steps) or a monotonic counter skips when it is next drawn after a
     *     change of primary that may have lost commits: values repeat only if the failover lost more than this. 0
     *     turns the protection off.
     */
    public record Failover(@Nullable Long skipAhead) {}

    /**
     * The shared caches on Redis ({@code counters-redis}), through the application's Spring Data Redis connection.
     *
     * @param keyPrefix Prefix of every key the caches write, to keep them apart from the application's own keys.
     * @param loadTimeout Maximum wait for another node's load of a monotonic counter's value from the database.
     */
    public record Redis(
            @DefaultValue("counters:") String keyPrefix,
            @DefaultValue("10s") Duration loadTimeout) {}

    /**
     * Rate limiters ({@code CounterService.rateLimiter}, {@link RateLimited}, {@code routes}).
     *
     * @param onStoreFailure What a decision is when the database does not answer: 'closed' (refuse) or 'open' (admit
     *     up to 'fail-open-permits' per node and period, then refuse).
     * @param failOpenPermits Most permits each node admits per period of a limiter while the database does not answer
     *     and the limiter fails open. By default a tenth of the limiter's permits, at least 1.
     * @param headers Whether admitted requests of limited web routes carry the RateLimit-Policy and RateLimit headers;
     *     refused ones always do.
     * @param limiters Limits of the rate limiters, by exact name or by pattern ('*' any run of characters, '?' one
     *     character; in YAML, a key with dots or wildcards in brackets: '"[api.*]"'). A rule takes 'limit' (such as
     *     '100/1m', '5/s', '10000/month'), 'algorithm', 'burst', 'sub-windows', 'zone', 'on-store-failure' and
     *     'fail-open-permits'.
     * @param routes Limits of web requests by path, without annotations, checked in their order before the limits of
     *     the handler's @RateLimited. A route takes 'path' (path patterns), 'methods', 'limiter', 'key', 'limit' and
     *     'permits'.
     */
    public record RateLimits(
            @DefaultValue("closed") RateLimitRule.OnStoreFailure onStoreFailure,
            @Nullable Long failOpenPermits,
            @DefaultValue("true") boolean headers,
            Map<String, LimiterProperties> limiters,
            List<RouteProperties> routes) {

        public RateLimits {
            limiters = limiters == null ? Map.of() : new LinkedHashMap<>(limiters);
            routes = routes == null ? List.of() : List.copyOf(routes);
        }
    }

    /**
     * The limit of one rate limiter, or of the limiters matching a pattern.
     *
     * @param limit Permits per period: '100/1m', '5/s', '20/10s burst 5', a calendar quota '10000/month' or
     *     '500/day@Europe/Berlin'.
     * @param algorithm Algorithm: 'gcra' (smooth, the default), 'fixed-window' or 'sliding-window'.
     * @param burst Most permits a full GCRA bucket holds, 1 to the permits. By default the permits.
     * @param subWindows Slices of a sliding window's period, 2 to 60. By default 10.
     * @param zone Zone whose midnight starts a calendar quota's days. By default UTC.
     * @param onStoreFailure What a decision is when the database does not answer. By default
     *     'counters.rate-limits.on-store-failure'.
     * @param failOpenPermits Most permits each node admits per period while failing open. By default
     *     'counters.rate-limits.fail-open-permits'.
     */
    public record LimiterProperties(
            @Nullable String limit,
            RateLimit.@Nullable Algorithm algorithm,
            @Nullable Long burst,
            @Nullable Integer subWindows,
            @Nullable ZoneId zone,
            RateLimitRule.@Nullable OnStoreFailure onStoreFailure,
            @Nullable Long failOpenPermits) {}

    /**
     * A limit on web requests by path, as a {@link RateLimited} annotation on their handler would set it.
     *
     * @param path Path patterns of the requests (Spring's PathPattern syntax: '/api/**', '/articles/{id}/like').
     * @param methods HTTP methods of the requests. By default every method.
     * @param limiter Name of the rate limiter; its limit is 'limit', or its rule under 'limiters'.
     * @param key SpEL expression of the key each request is counted under (see @RateLimited): '#request.remoteAddr',
     *     "#header('X-Api-Key')", '#principal?.name'.
     * @param limit Limit of the limiter ('20/1s'), instead of its rule under 'limiters'.
     * @param permits Permits one request takes.
     */
    public record RouteProperties(
            List<String> path,
            List<String> methods,
            @Nullable String limiter,
            @DefaultValue("#request.remoteAddr") String key,
            @Nullable String limit,
            @DefaultValue("1") long permits) {

        public RouteProperties {
            path = path == null ? List.of() : List.copyOf(path);
            methods = methods == null ? List.of() : List.copyOf(methods);
        }
    }
}
