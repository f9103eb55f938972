package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterRule;
import dev.counters.WindowSettings;
import dev.counters.sequence.SequenceSettings;
import dev.counters.spring.boot.docs.Documentation;
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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * {@link CounterRules} maps bound properties to the services' rules: core defaults, overridden by a strategy's group,
 * then by a rule's; every setting of every group reaches its record; a refusal names the property. Properties are
 * bound as Boot binds them.
 */
class CounterRulesTest {

    /** Every setting of each group, none at its default, and the settings they make. */
    static Stream<Arguments> everySetting() {
        return Stream.of(
                Arguments.of(
                        "optimistic",
                        "max-attempts=3, initial-backoff=5ms, max-backoff=50ms",
                        new OptimisticSettings(3, Duration.ofMillis(5), Duration.ofMillis(50))),
                Arguments.of(
                        "sharded",
                        "shards=4, selection=thread, cached-total-expiry=2s, shard-count-refresh=30s," + " cache=local",
                        new ShardedSettings(
                                4,
                                ShardedSettings.Selection.THREAD,
                                Duration.ofSeconds(2),
                                Duration.ofSeconds(30),
                                CacheChoice.LOCAL)),
                Arguments.of(
                        "node",
                        "id=n-1, decrements=false, lease-ttl=10s",
                        new NodeSettings("n-1", false, Duration.ofSeconds(10))),
                Arguments.of(
                        "buffered",
                        "flush-interval=2s, flush-threshold=10, max-pending-counters=7,"
                                + " when-full=block, block-timeout=3s, shutdown-timeout=4s, key-retention=2h,"
                                + " flush-lanes=2",
                        new BufferedSettings(
                                Duration.ofSeconds(2),
                                10,
                                7,
                                BufferedSettings.WhenFull.BLOCK,
                                Duration.ofSeconds(3),
                                Duration.ofSeconds(4),
                                Duration.ofHours(2),
                                2)),
                Arguments.of(
                        "delta-log",
                        "recount-after=1m, recount-at-deltas=50, read-folded=true,"
                                + " append-attempts=2, folded-retention=3h",
                        new DeltaLogSettings(Duration.ofMinutes(1), 50, true, 2, Duration.ofHours(3))),
                Arguments.of(
                        "monotonic",
                        "shards=5, chance-to-write=0.5, cache=local",
                        new MonotonicSettings(5, 0.5, CacheChoice.LOCAL)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("everySetting")
    void everySettingOfAGroupReachesItsRecordFromTheTopOrFromARule(
            String strategy, String settings, StrategySettings expected) {
        Map<String, String> top = new LinkedHashMap<>(Map.of("counters.default-strategy", strategy));
        Map<String, String> ruled = new LinkedHashMap<>(Map.of("counters.counters.[c].strategy", strategy));
        for (String setting : settings.split(", ")) {
            String[] pair = setting.split("=");
            top.put("counters." + strategy + "." + pair[0], pair[1]);
            ruled.put("counters.counters.[c]." + strategy + "." + pair[0], pair[1]);
        }
        CounterRules fromTop = rules(top);
        assertThat(fromTop.defaultStrategy()).isEqualTo(expected);
        assertThat(rules(ruled).rules().get("c")).isEqualTo(CounterRule.of(expected));
    }

    @Test
    void aRuleOverridesItsGroupWhichOverridesTheCoreDefaults() {
        CounterRules rules = rules(Map.of(
                "counters.default-strategy",
                "sharded",
                "counters.sharded.shards",
                "8",
                "counters.sharded.selection",
                "thread",
                "counters.counters.[views.*].sharded.shards",
                "4",
                "counters.counters.[likes].window",
                "1m"));
        ShardedSettings group =
                ShardedSettings.defaults().withShards(8).withSelection(ShardedSettings.Selection.THREAD);
        assertThat(rules.defaultStrategy()).as("the group over core's defaults").isEqualTo(group);
        assertThat(rules.rules().get("views.*"))
                .as("the rule over the group")
                .isEqualTo(CounterRule.of(group.withShards(4)));
        assertThat(rules.rules().get("likes"))
                .as("a rule that names no strategy: the default one, with the group")
                .isEqualTo(CounterRule.of(group).withWindow(WindowSettings.of(Duration.ofMinutes(1))));
        assertThat(rules(Map.of()).defaultStrategy()).as("nothing set").isEqualTo(AtomicSettings.defaults());
    }

    @Test
    void aRuleOfAnotherStrategyTakesThatStrategysGroup() {
        CounterRules rules =
                rules(Map.of("counters.optimistic.max-attempts", "3", "counters.counters.[o].strategy", "optimistic"));
        assertThat(rules.defaultStrategy()).isEqualTo(AtomicSettings.defaults());
        assertThat(rules.rules().get("o").settings())
                .isEqualTo(new OptimisticSettings(
                        3,
                        OptimisticSettings.defaults().initialBackoff(),
                        OptimisticSettings.defaults().maxBackoff()));
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(textBlock = """
            ,      ,      DEFAULT
            local, ,      LOCAL
            redis, ,      SHARED
            redis, local, LOCAL
            local, redis, SHARED
            """)
    void cacheLocationsBecomeCacheChoicesAndARulesWins(String group, String rule, CacheChoice expected) {
        Map<String, String> properties = new LinkedHashMap<>(
                Map.of("counters.counters.[m].strategy", "monotonic", "counters.counters.[s].strategy", "sharded"));
        if (group != null) {
            properties.put("counters.monotonic.cache", group);
            properties.put("counters.sharded.cache", group);
        }
        if (rule != null) {
            properties.put("counters.counters.[m].monotonic.cache", rule);
            properties.put("counters.counters.[s].sharded.cache", rule);
        }
        CounterRules rules = CounterRules.of(bind(properties), true, true);
        assertThat(((MonotonicSettings) rules.rules().get("m").settings()).cache())
                .isEqualTo(expected);
        assertThat(((ShardedSettings) rules.rules().get("s").settings()).cache())
                .isEqualTo(expected);
    }

    @Test
    void windowsAndIdleExpiryArePerRule() {
        CounterRules rules = rules(Map.of(
                "counters.counters.[api.*].window",
                "1m",
                "counters.counters.[api.*].retention",
                "1h",
                "counters.counters.[api.*].zone",
                "Europe/Paris",
                "counters.counters.[pages].window",
                "1h",
                "counters.counters.[pages].retained-windows",
                "5",
                "counters.counters.[carts.*].expire-after-idle",
                "2h"));
        assertThat(rules.rules().get("api.*"))
                .isEqualTo(CounterRule.of(AtomicSettings.defaults())
                        .withWindow(WindowSettings.of(Duration.ofMinutes(1))
                                .withRetention(Duration.ofHours(1))
                                .withZone(ZoneId.of("Europe/Paris"))));
        assertThat(rules.rules().get("pages").window())
                .isEqualTo(WindowSettings.of(Duration.ofHours(1)).withRetainedWindows(5));
        assertThat(rules.rules().get("carts.*"))
                .isEqualTo(CounterRule.of(AtomicSettings.defaults()).withExpireAfterIdle(Duration.ofHours(2)));
    }

    @Test
    void membersTrueMakesARuleCountMembersWithItsStrategy() {
        CounterRules rules = rules(Map.of(
                "counters.sharded.shards", "8",
                "counters.counters.[post.*.likes].strategy", "sharded",
                "counters.counters.[post.*.likes].members", "true",
                "counters.counters.[followers.*].members", "true",
                "counters.counters.[views.*].strategy", "sharded"));
        assertThat(rules.rules().get("post.*.likes"))
                .isEqualTo(
                        CounterRule.of(ShardedSettings.defaults().withShards(8)).withMembers());
        assertThat(rules.rules().get("followers.*"))
                .as("the default strategy")
                .isEqualTo(CounterRule.of(AtomicSettings.defaults()).withMembers());
        assertThat(rules.rules().get("views.*").members()).as("unset: false").isFalse();
    }

    @Test
    void rulesKeepTheirOrderForPatternsMatchInIt() {
        Map<String, String> properties = new LinkedHashMap<>();
        for (String pattern : new String[] {"z.*", "a.*", "m.*"}) {
            properties.put("counters.counters.[" + pattern + "].strategy", "sharded");
        }
        assertThat(rules(properties).rules().keySet()).containsExactly("z.*", "a.*", "m.*");
    }

    @Test
    void theShutdownTimeoutIsTheLongestOfTheGroupAndTheBufferedRules() {
        assertThat(rules(Map.of()).shutdownTimeout())
                .isEqualTo(BufferedSettings.defaults().shutdownTimeout());
        assertThat(rules(Map.of("counters.buffered.shutdown-timeout", "5s")).shutdownTimeout())
                .as("the group's, whether or not a counter is buffered")
                .isEqualTo(Duration.ofSeconds(5));
        assertThat(rules(Map.of(
                                "counters.buffered.shutdown-timeout",
                                "5s",
                                "counters.counters.[a].strategy",
                                "buffered",
                                "counters.counters.[a].buffered.shutdown-timeout",
                                "50s",
                                "counters.counters.[b].strategy",
                                "buffered",
                                "counters.counters.[b].buffered.shutdown-timeout",
                                "9s"))
                        .shutdownTimeout())
                .isEqualTo(Duration.ofSeconds(50));
    }

    @Test
    void keyRetentionAndSequences() {
        assertThat(rules(Map.of()).keyRetention()).as("core's default").isNull();
        assertThat(rules(Map.of("counters.key-retention", "2h")).keyRetention()).isEqualTo(Duration.ofHours(2));
        CounterRules rules = rules(Map.of(
                "counters.sequences.[orders].block-size",
                "4",
                "counters.sequences.[invoices.*].mode",
                "gapless",
                "counters.sequences.[invoices.*].increment",
                "2"));
        SequenceSettings defaults = SequenceSettings.defaults();
        assertThat(rules.sequences().get("orders"))
                .isEqualTo(new SequenceSettings(
                        defaults.mode(),
                        4,
                        Math.max(4, defaults.maxBlockSize()),
                        defaults.start(),
                        defaults.increment(),
                        Long.MAX_VALUE - defaults.increment()));
        assertThat(rules.sequences().get("invoices.*"))
                .isEqualTo(new SequenceSettings(
                        SequenceSettings.Mode.GAPLESS,
                        defaults.blockSize(),
                        defaults.maxBlockSize(),
                        defaults.start(),
                        2,
                        Long.MAX_VALUE - 2));
    }

    @Test
    void aBoundedRuleTakesItsBoundsTheGroupAndTheNodeId() {
        CounterRules rules = rules(Map.ofEntries(
                Map.entry("counters.node.id", "web-1"),
                Map.entry("counters.node.lease-ttl", "10s"),
                Map.entry("counters.bounded.escrow", "false"),
                Map.entry("counters.bounded.escrow-above", "50"),
                Map.entry("counters.bounded.refill-horizon", "1s"),
                Map.entry("counters.bounded.min-refill", "4"),
                Map.entry("counters.bounded.max-refill", "400"),
                Map.entry("counters.bounded.give-back-after", "3s"),
                Map.entry("counters.bounded.sweep-interval", "1s"),
                Map.entry("counters.bounded.max-hold-ttl", "10m"),
                Map.entry("counters.counters.[stock.*].strategy", "bounded"),
                Map.entry("counters.counters.[stock.*].min", "0"),
                Map.entry("counters.counters.[stock.*].initial", "20"),
                Map.entry("counters.counters.[quota.*].strategy", "bounded"),
                Map.entry("counters.counters.[quota.*].min", "0"),
                Map.entry("counters.counters.[quota.*].max", "10000"),
                Map.entry("counters.counters.[quota.*].bounded.escrow", "true"),
                Map.entry("counters.counters.[debt].strategy", "bounded"),
                Map.entry("counters.counters.[debt].max", "-5")));
        BoundedSettings group = new BoundedSettings(
                0L,
                null,
                20,
                false,
                50,
                "web-1",
                Duration.ofSeconds(10),
                Duration.ofSeconds(1),
                4,
                400,
                Duration.ofSeconds(3),
                Duration.ofSeconds(1),
                Duration.ofMinutes(10));
        assertThat(rules.rules().get("stock.*")).isEqualTo(CounterRule.of(group));
        assertThat(rules.rules().get("quota.*"))
                .as("the rule over the group; no initial value: 0")
                .isEqualTo(CounterRule.of(group.withEscrow(true).withBounds(0L, 10_000L, 0)));
        assertThat(rules.rules().get("debt").settings())
                .as("0 is above the max: it starts at the max")
                .isEqualTo(group.withBounds(null, -5L, -5));
    }

    /** What BadConfigurationTest does not show: which level is named, and the caches. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            counters.delta-log.append-attempts=0 | counters.delta-log: delta-log append-attempts must be >= 1, was 0
            counters.counters.[d].strategy=delta-log & counters.counters.[d].delta-log.append-attempts=0 | counters.counters.[d].delta-log: delta-log append-attempts must be >= 1, was 0
            counters.counters.[d].buffered.when-full=block | counters.counters.[d].buffered holds settings of the buffered strategy, but these counters use the atomic strategy
            counters.counters.[s].strategy=sharded & counters.counters.[s].sharded.cache=redis | counters.counters.[s].sharded.cache is redis, but there is no TotalCache bean
            counters.counters.[m].strategy=monotonic & counters.counters.[m].monotonic.cache=redis | counters.counters.[m].monotonic.cache is redis, but there is no MonotonicCache bean
            counters.monotonic.cache=redis | counters.monotonic.cache is redis, but there is no MonotonicCache bean
            counters.counters.[c].retained-windows=0 & counters.counters.[c].window=1m | counters.counters.[c].window:
            counters.counters.[c].strategy=buffered & counters.counters.[c].buffered.flush-threshold=0 & counters.counters.[c].expire-after-idle=10s | counters.counters.[c].buffered: buffered flush-threshold must be >= 1
            counters.counters.[l].strategy=buffered & counters.counters.[l].members=true | counters.counters.[l].members: The buffered strategy cannot count members: a membership counter takes the atomic, sharded or node strategy
            counters.default-strategy=delta-log & counters.counters.[l].members=true | counters.counters.[l].members: The delta-log strategy cannot count members
            counters.counters.[l].members=true & counters.counters.[l].window=1m | counters.counters.[l].members: A membership counter has no windows
            counters.counters.[l].members=true & counters.counters.[l].expire-after-idle=1h | counters.counters.[l].members: A membership counter cannot expire after idling
            counters.sequences.[s].increment=0 | counters.sequences.[s]:
            counters.default-strategy=bounded | counters.default-strategy is bounded, but bounds are set per counter
            counters.counters.[s].min=0 | counters.counters.[s].min is a bound, but these counters use the atomic strategy
            counters.counters.[s].strategy=sharded & counters.counters.[s].initial=3 | counters.counters.[s].initial is a bound, but these counters use the sharded strategy
            counters.counters.[s].strategy=bounded | counters.counters.[s].min: a bounded counter needs a min, a max or both
            counters.counters.[s].strategy=bounded & counters.counters.[s].min=5 & counters.counters.[s].max=1 | counters.counters.[s].min: bounded min 5 is above max 1
            counters.counters.[s].strategy=bounded & counters.counters.[s].min=0 & counters.counters.[s].initial=-1 | counters.counters.[s].min: bounded initial value -1 is outside [0, none]
            counters.counters.[s].strategy=bounded & counters.counters.[s].min=0 & counters.counters.[s].window=1m | counters.counters.[s].window:
            counters.bounded.min-refill=0 | counters.bounded: bounded refills need 1 <= min-refill <= max-refill
            counters.counters.[s].strategy=bounded & counters.counters.[s].min=0 & counters.counters.[s].bounded.sweep-interval=1ms | counters.counters.[s].min: bounded sweep-interval must be at least
            """)
    void aRefusalNamesThePropertyAtItsLevel(String properties, String message) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String property : properties.split(" & ")) {
            String[] pair = property.split("=");
            map.put(pair[0], pair[1]);
        }
        assertThatThrownBy(() -> rules(map))
                .isInstanceOf(CounterRules.InvalidPropertyException.class)
                .hasMessageStartingWith(message);
    }

    /** The docs' yaml blocks, which DocumentationSnippetsTest binds strictly, hold values core accepts. */
    @Test
    void everyYamlBlockOfTheDocsMaps() throws IOException {
        List<Documentation.Block> blocks = Documentation.blocks("yaml");
        assertThat(blocks).as("yaml blocks").hasSizeGreaterThan(5);
        for (Documentation.Block block : blocks) {
            List<PropertySource<?>> sources = new YamlPropertySourceLoader()
                    .load(block.where(), new ByteArrayResource(block.code().getBytes(StandardCharsets.UTF_8)));
            CountersProperties properties = new Binder(ConfigurationPropertySources.from(sources))
                    .bindOrCreate("counters", Bindable.of(CountersProperties.class));
            assertThatCode(() -> CounterRules.of(properties, true, true))
                    .as(block.where())
                    .doesNotThrowAnyException();
        }
    }

    /** Without the application's shared caches (the application context provides whether it has them). */
    private static CounterRules rules(Map<String, String> properties) {
        return CounterRules.of(bind(properties), false, false);
    }

    private static CountersProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties))
                .bindOrCreate("counters", Bindable.of(CountersProperties.class));
    }
}
