package dev.counters.spring.boot;

import dev.counters.CounterName;
import dev.counters.CounterRule;
import dev.counters.CounterServiceBuilder;
import dev.counters.WindowSettings;
import dev.counters.sequence.SequenceSettings;
import dev.counters.spi.MonotonicCache;
import dev.counters.spi.TotalCache;
import dev.counters.spring.boot.CountersProperties.Bounded;
import dev.counters.spring.boot.CountersProperties.Buffered;
import dev.counters.spring.boot.CountersProperties.CacheLocation;
import dev.counters.spring.boot.CountersProperties.CounterProperties;
import dev.counters.spring.boot.CountersProperties.DeltaLog;
import dev.counters.spring.boot.CountersProperties.Monotonic;
import dev.counters.spring.boot.CountersProperties.Node;
import dev.counters.spring.boot.CountersProperties.Optimistic;
import dev.counters.spring.boot.CountersProperties.SequenceProperties;
import dev.counters.spring.boot.CountersProperties.Sharded;
import dev.counters.spring.boot.CountersProperties.StrategyType;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.CacheChoice;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import dev.counters.strategy.StrategySettings;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What {@link CountersProperties} configures, as the services' builders take it. A strategy's settings are its core
 * defaults ({@code ShardedSettings.defaults()}), overridden by its group ({@code counters.sharded.*}), then by a rule's
 * ({@code counters.counters.[views.*].sharded.*}). Values are checked by building the settings records, windows and
 * rules, which check themselves; a refusal comes back naming the property.
 *
 * @param defaultStrategy the strategy of the counters no rule gives one
 * @param rules the rules under {@code counters.counters}, by name or pattern, in their order
 * @param keyRetention how long idempotency keys are remembered; null: core's default
 * @param sequences the settings under {@code counters.sequences}, by name or pattern, in their order
 * @param shutdownTimeout the longest any buffered strategy takes to write what is pending when the application stops
 */
record CounterRules(
        StrategySettings defaultStrategy,
        Map<String, CounterRule> rules,
        @Nullable Duration keyRetention,
        Map<String, SequenceSettings> sequences,
        Duration shutdownTimeout) {

    private static final CounterProperties NO_RULE = new CounterProperties(
            null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, null, false);

    /**
     * Maps and checks {@code properties}. {@code monotonicCache} and {@code totalCache} say whether the application
     * has those shared caches, which a group's {@code cache: redis} needs.
     *
     * @throws InvalidPropertyException for a value core refuses, or {@code cache: redis} without the cache
     */
    static CounterRules of(CountersProperties properties, boolean monotonicCache, boolean totalCache) {
        // The groups under counters.*, as a rule that sets no strategy. Each is checked, used or not, so that a
        // failure in a rule's settings is the rule's.
        CounterProperties top = new CounterProperties(
                null,
                properties.optimistic(),
                properties.sharded(),
                properties.node(),
                properties.buffered(),
                properties.deltaLog(),
                properties.monotonic(),
                properties.bounded(),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                false);
        checkCaches("counters", top, monotonicCache, totalCache);
        for (StrategyType type : StrategyType.values()) {
            checked("counters." + name(type), () -> settings(type, top, NO_RULE));
        }
        if (properties.defaultStrategy() == StrategyType.BOUNDED) {
            throw new InvalidPropertyException(
                    "counters.default-strategy is bounded, but bounds are set per counter: give each bounded counter a"
                            + " rule under counters.counters with its min and/or max, and strategy: bounded",
                    null);
        }
        Map<String, CounterRule> rules = new LinkedHashMap<>();
        properties.counters().forEach((nameOrPattern, rule) -> {
            String property = "counters.counters.[" + nameOrPattern + "]";
            checked(property, () -> CounterName.validatePattern(nameOrPattern));
            rules.put(nameOrPattern, rule(property, top, rule, properties.defaultStrategy()));
            checkCaches(property, rule, monotonicCache, totalCache);
        });
        Duration keyRetention = properties.keyRetention();
        if (keyRetention != null) {
            checked("counters.key-retention", () -> CounterServiceBuilder.checkKeyRetention(keyRetention));
        }
        Map<String, SequenceSettings> sequences = new LinkedHashMap<>();
        properties.sequences().forEach((nameOrPattern, sequence) -> {
            String property = "counters.sequences.[" + nameOrPattern + "]";
            checked(property, () -> CounterName.validatePattern(nameOrPattern));
            sequences.put(nameOrPattern, checked(property, () -> sequence(sequence)));
        });
        // The group's timeout bounds a stop's flush even when no counter is buffered.
        Duration shutdownTimeout =
                overlay(BufferedSettings.defaults(), properties.buffered()).shutdownTimeout();
        for (CounterRule rule : rules.values()) {
            if (rule.settings() instanceof BufferedSettings buffered
                    && buffered.shutdownTimeout().compareTo(shutdownTimeout) > 0) {
                shutdownTimeout = buffered.shutdownTimeout();
            }
        }
        return new CounterRules(
                settings(properties.defaultStrategy(), top, NO_RULE),
                Collections.unmodifiableMap(rules),
                keyRetention,
                Collections.unmodifiableMap(sequences),
                shutdownTimeout);
    }

    /**
     * A rule's strategy (the default one unless it names one), with its windows and idle expiry, and whether its
     * counters count members.
     */
    private static CounterRule rule(
            String property, CounterProperties top, CounterProperties rule, StrategyType defaultType) {
        StrategyType chosen = rule.strategy();
        StrategyType type = chosen != null ? chosen : defaultType;
        for (StrategyType other : StrategyType.values()) {
            if (other != type && group(other, rule) != null) {
                throw new InvalidPropertyException(
                        property + "." + name(other) + " holds settings of the " + name(other)
                                + " strategy, but these counters use the " + name(type) + " strategy",
                        null);
            }
        }
        checkBounds(property, rule, type);
        CounterRule strategy = CounterRule.of(checked(
                property + (type == StrategyType.BOUNDED ? ".min" : "." + name(type)),
                () -> settings(type, top, rule)));
        CounterRule windowed = checked(
                property + ".window",
                () -> windows(rule).map(strategy::withWindow).orElse(strategy));
        Duration idle = rule.expireAfterIdle();
        CounterRule expiring = idle == null
                ? windowed
                : checked(property + ".expire-after-idle", () -> windowed.withExpireAfterIdle(idle));
        // Last, so that a refusal (a strategy that cannot count members, windows, an expiry) names members: true.
        return rule.members() ? checked(property + ".members", expiring::withMembers) : expiring;
    }

    /**
     * {@code type}'s settings: its core defaults, overridden by its group under {@code counters.*}, then by the
     * rule's. A new strategy adds its arm here and in {@link #group}.
     */
    private static StrategySettings settings(StrategyType type, CounterProperties top, CounterProperties rule) {
        return switch (type) {
            case ATOMIC -> AtomicSettings.defaults(); // nothing to set
            case OPTIMISTIC -> overlay(overlay(OptimisticSettings.defaults(), top.optimistic()), rule.optimistic());
            case SHARDED -> overlay(overlay(ShardedSettings.defaults(), top.sharded()), rule.sharded());
            case NODE -> overlay(overlay(NodeSettings.defaults(), top.node()), rule.node());
            case BUFFERED -> overlay(overlay(BufferedSettings.defaults(), top.buffered()), rule.buffered());
            case DELTA_LOG -> overlay(overlay(DeltaLogSettings.defaults(), top.deltaLog()), rule.deltaLog());
            case MONOTONIC -> overlay(overlay(MonotonicSettings.defaults(), top.monotonic()), rule.monotonic());
            case BOUNDED -> bounded(top, rule);
        };
    }

    /**
     * A bounded rule's settings: the groups over core's defaults, the node id and its lease from the node group, and
     * the rule's bounds (the group alone keeps the defaults' bounds, to be checked).
     */
    private static BoundedSettings bounded(CounterProperties top, CounterProperties rule) {
        BoundedSettings settings = overlay(overlay(BoundedSettings.defaults(), top.bounded()), rule.bounded());
        NodeSettings node = overlay(NodeSettings.defaults(), top.node());
        settings = settings.withNodeId(node.nodeId()).withLeaseTtl(node.leaseTtl());
        Long min = rule.min();
        Long max = rule.max();
        if (min == null && max == null) {
            return settings;
        }
        Long initial = rule.initial();
        return initial == null ? settings.withBounds(min, max) : settings.withBounds(min, max, initial);
    }

    /** Bounds belong to bounded counters, which need one at least. */
    private static void checkBounds(String property, CounterProperties rule, StrategyType type) {
        boolean bounds = rule.min() != null || rule.max() != null || rule.initial() != null;
        if (type != StrategyType.BOUNDED && bounds) {
            String set = rule.min() != null ? "min" : rule.max() != null ? "max" : "initial";
            throw new InvalidPropertyException(
                    property + "." + set + " is a bound, but these counters use the " + name(type) + " strategy:"
                            + " bounds need strategy: bounded",
                    null);
        }
        if (type == StrategyType.BOUNDED && rule.min() == null && rule.max() == null) {
            throw new InvalidPropertyException(
                    property + ".min: a bounded counter needs a min, a max or both (min: 0 for stock)", null);
        }
    }

    /** {@code type}'s group at one level (the top, or a rule); null when unset there. */
    private static @Nullable Object group(StrategyType type, CounterProperties level) {
        return switch (type) {
            case ATOMIC -> null;
            case OPTIMISTIC -> level.optimistic();
            case SHARDED -> level.sharded();
            case NODE -> level.node();
            case BUFFERED -> level.buffered();
            case DELTA_LOG -> level.deltaLog();
            case MONOTONIC -> level.monotonic();
            case BOUNDED -> level.bounded();
        };
    }

    /** The strategy's name in configuration: {@code delta-log}. */
    private static String name(StrategyType type) {
        return type.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    // One overlay per group: the values it sets override the inherited ones, the others keep them.

    private static OptimisticSettings overlay(OptimisticSettings inherited, @Nullable Optimistic group) {
        return group == null
                ? inherited
                : new OptimisticSettings(
                        or(group.maxAttempts(), inherited.maxAttempts()),
                        or(group.initialBackoff(), inherited.initialBackoff()),
                        or(group.maxBackoff(), inherited.maxBackoff()));
    }

    private static ShardedSettings overlay(ShardedSettings inherited, @Nullable Sharded group) {
        if (group == null) {
            return inherited;
        }
        Duration cachedTotalExpiry = group.cachedTotalExpiry();
        CacheLocation cache = group.cache();
        return new ShardedSettings(
                or(group.shards(), inherited.shards()),
                or(group.selection(), inherited.selection()),
                cachedTotalExpiry != null ? cachedTotalExpiry : inherited.cachedTotalExpiry(),
                or(group.shardCountRefresh(), inherited.shardCountRefresh()),
                cache != null ? cacheChoice(cache) : inherited.cache());
    }

    private static NodeSettings overlay(NodeSettings inherited, @Nullable Node group) {
        if (group == null) {
            return inherited;
        }
        String id = group.id();
        return new NodeSettings(
                id != null ? id : inherited.nodeId(),
                or(group.decrements(), inherited.decrements()),
                or(group.leaseTtl(), inherited.leaseTtl()));
    }

    private static BufferedSettings overlay(BufferedSettings inherited, @Nullable Buffered group) {
        return group == null
                ? inherited
                : new BufferedSettings(
                        or(group.flushInterval(), inherited.flushInterval()),
                        or(group.flushThreshold(), inherited.flushThreshold()),
                        or(group.maxPendingCounters(), inherited.maxPendingCounters()),
                        or(group.whenFull(), inherited.whenFull()),
                        or(group.blockTimeout(), inherited.blockTimeout()),
                        or(group.shutdownTimeout(), inherited.shutdownTimeout()),
                        or(group.keyRetention(), inherited.keyRetention()),
                        or(group.flushLanes(), inherited.flushLanes()));
    }

    private static DeltaLogSettings overlay(DeltaLogSettings inherited, @Nullable DeltaLog group) {
        return group == null
                ? inherited
                : new DeltaLogSettings(
                        or(group.recountAfter(), inherited.recountAfter()),
                        or(group.recountAtDeltas(), inherited.recountAtDeltas()),
                        or(group.readFolded(), inherited.readFolded()),
                        or(group.appendAttempts(), inherited.appendAttempts()),
                        or(group.foldedRetention(), inherited.foldedRetention()));
    }

    private static MonotonicSettings overlay(MonotonicSettings inherited, @Nullable Monotonic group) {
        if (group == null) {
            return inherited;
        }
        CacheLocation cache = group.cache();
        return new MonotonicSettings(
                or(group.shards(), inherited.shards()),
                or(group.chanceToWrite(), inherited.chanceToWrite()),
                cache != null ? cacheChoice(cache) : inherited.cache());
    }

    private static BoundedSettings overlay(BoundedSettings inherited, @Nullable Bounded group) {
        if (group == null) {
            return inherited;
        }
        Long minRefill = or(group.minRefill(), inherited.minRefill());
        return inherited
                .withEscrow(or(group.escrow(), inherited.escrow()))
                .withEscrowAbove(or(group.escrowAbove(), inherited.escrowAbove()))
                .withRefills(
                        or(group.refillHorizon(), inherited.refillHorizon()),
                        minRefill,
                        or(group.maxRefill(), Math.max(minRefill, inherited.maxRefill())))
                .withGiveBackAfter(or(group.giveBackAfter(), inherited.giveBackAfter()))
                .withSweepInterval(or(group.sweepInterval(), inherited.sweepInterval()))
                .withMaxHoldTtl(or(group.maxHoldTtl(), inherited.maxHoldTtl()));
    }

    /** {@code redis} is the shared cache, which building the service then requires. */
    private static CacheChoice cacheChoice(CacheLocation location) {
        return switch (location) {
            case LOCAL -> CacheChoice.LOCAL;
            case REDIS -> CacheChoice.SHARED;
        };
    }

    /**
     * A group that says {@code cache: redis} needs the application's shared cache. Checked here rather than left to
     * the service's builder, so that the failure names the property and says where the cache comes from.
     */
    private static void checkCaches(
            String level, CounterProperties groups, boolean monotonicCache, boolean totalCache) {
        Sharded sharded = groups.sharded();
        if (sharded != null) {
            requireCache(level + ".sharded", sharded.cache(), totalCache, TotalCache.class);
        }
        Monotonic monotonic = groups.monotonic();
        if (monotonic != null) {
            requireCache(level + ".monotonic", monotonic.cache(), monotonicCache, MonotonicCache.class);
        }
    }

    private static void requireCache(String group, @Nullable CacheLocation cache, boolean present, Class<?> type) {
        if (cache == CacheLocation.REDIS && !present) {
            throw new InvalidPropertyException(
                    group + ".cache is redis, but there is no " + type.getSimpleName()
                            + " bean: add dev.counters:counters-redis and configure Spring Data Redis (spring.data.redis.*),"
                            + " or set the cache to local",
                    null);
        }
    }

    /** The rule's windows, if it has any. */
    private static Optional<WindowSettings> windows(CounterProperties rule) {
        Duration window = rule.window();
        Duration retention = rule.retention();
        Integer retainedWindows = rule.retainedWindows();
        if (window == null) {
            if (retention != null || retainedWindows != null || rule.zone() != null) {
                throw new IllegalArgumentException(
                        "retention, retained-windows and zone apply to windows: set" + " window too");
            }
            return Optional.empty();
        }
        if (retention != null && retainedWindows != null) {
            throw new IllegalArgumentException("set retention or retained-windows, not both");
        }
        WindowSettings settings = WindowSettings.of(window);
        settings = retention != null ? settings.withRetention(retention) : settings;
        settings = retainedWindows != null ? settings.withRetainedWindows(retainedWindows) : settings;
        ZoneId zone = rule.zone();
        return Optional.of(zone != null ? settings.withZone(zone) : settings);
    }

    /** A sequence's settings; unset ones are the defaults, the largest value leaving room for one increment. */
    private static SequenceSettings sequence(SequenceProperties sequence) {
        SequenceSettings defaults = SequenceSettings.defaults();
        long step = or(sequence.increment(), defaults.increment());
        int first = or(sequence.blockSize(), defaults.blockSize());
        return new SequenceSettings(
                or(sequence.mode(), defaults.mode()),
                first,
                or(sequence.maxBlockSize(), Math.max(first, defaults.maxBlockSize())),
                or(sequence.start(), defaults.start()),
                step,
                or(sequence.maxValue(), Long.MAX_VALUE - step));
    }

    private static <T> T or(@Nullable T value, T inherited) {
        return value != null ? value : inherited;
    }

    /** Runs a check, naming {@code property} in what it refuses. */
    static void checked(String property, Runnable check) {
        checked(property, () -> {
            check.run();
            return property;
        });
    }

    /** Maps a value, naming {@code property} in what core refuses. */
    static <T> T checked(String property, Supplier<T> mapping) {
        try {
            return mapping.get();
        } catch (IllegalArgumentException e) {
            throw new InvalidPropertyException(property + ": " + e.getMessage(), e);
        }
    }

    /**
     * A property under {@code counters.*} that cannot be used; the message names it. Startup fails with it, explained
     * by {@link InvalidCountersPropertyFailureAnalyzer}.
     */
    static final class InvalidPropertyException extends IllegalArgumentException {

        private static final long serialVersionUID = 1L;

        InvalidPropertyException(String message, @Nullable Throwable cause) {
            super(message, cause);
        }
    }
}
