package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterServiceBuilder;
import dev.counters.strategy.BoundedSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.DeltaLogSettings;
import dev.counters.strategy.MonotonicSettings;
import dev.counters.strategy.NodeSettings;
import dev.counters.strategy.OptimisticSettings;
import dev.counters.strategy.ShardedSettings;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The configuration metadata an IDE shows, as built (the annotation processor's output merged with
 * additional-spring-configuration-metadata.json): every property described in Boot's style, with its default unless
 * unset means something of its own, the defaults those core applies, every enum with hints for all its values, and
 * the keys a rule takes described.
 */
class ConfigurationMetadataTest {

    private static final JsonNode METADATA = JsonMapper.builder()
            .build()
            .readTree(Path.of("target/classes/META-INF/spring-configuration-metadata.json")
                    .toFile());

    /** The properties whose unset value means something other than a default, and what. */
    private static final Map<String, String> UNSET_MEANS = Map.ofEntries(
            Map.entry("counters.counters", "no rules"),
            Map.entry("counters.sequences", "every sequence with the defaults"),
            Map.entry("counters.node.id", "one generated at each start"),
            Map.entry("counters.sharded.cached-total-expiry", "no cached total"),
            Map.entry("counters.sharded.cache", "redis when there is a shared cache, else local"),
            Map.entry("counters.monotonic.cache", "redis when there is a shared cache, else local"),
            Map.entry("management.endpoint.counters.roles", "any authenticated user"),
            Map.entry("counters.datasource.url", "the application's DataSource"),
            Map.entry("counters.datasource.username", "none, or what the URL says"),
            Map.entry("counters.datasource.password", "none, or what the URL says"),
            Map.entry("counters.datasource.driver-class-name", "detected from the URL"),
            Map.entry("counters.datasource.hikari", "HikariCP's defaults, pool name 'counters'"),
            Map.entry("counters.rate-limits.fail-open-permits", "a tenth of each limiter's permits, at least 1"),
            Map.entry("counters.rate-limits.limiters", "no rules"),
            Map.entry("counters.rate-limits.routes", "no routes"));

    /** Core's defaults per strategy group: the only place they are written. */
    private static final Map<String, Object> CORE_DEFAULTS = Map.of(
            "optimistic",
            OptimisticSettings.defaults(),
            "sharded",
            ShardedSettings.defaults(),
            "node",
            NodeSettings.defaults(),
            "buffered",
            BufferedSettings.defaults(),
            "delta-log",
            DeltaLogSettings.defaults(),
            "monotonic",
            MonotonicSettings.defaults(),
            "bounded",
            BoundedSettings.defaults());

    @Test
    void everyPropertyHasADescriptionInBootsStyle() {
        assertThat(properties()).isNotEmpty().allSatisfy(property -> {
            String description = property.path("description").asString("");
            assertThat(description)
                    .as(name(property))
                    .isNotBlank()
                    .endsWith(".")
                    .doesNotStartWith("The ")
                    .doesNotStartWith("A ");
            assertThat(Character.isUpperCase(description.charAt(0)))
                    .as(name(property))
                    .isTrue();
        });
    }

    @Test
    void everyPropertyHasItsDefaultUnlessUnsetMeansSomething() {
        assertThat(properties())
                .allSatisfy(property -> assertThat(property.has("defaultValue"))
                        .as(name(property) + " has a default")
                        .isEqualTo(!UNSET_MEANS.containsKey(name(property))));
        assertThat(properties()).extracting(ConfigurationMetadataTest::name).containsAll(UNSET_MEANS.keySet());
    }

    @Test
    void theDefaultsAreTheOnesCoreApplies() throws ReflectiveOperationException {
        Map<String, Object> checked = new LinkedHashMap<>();
        for (JsonNode property : properties()) {
            String[] parts = name(property).split("\\.");
            if (parts.length == 3 && CORE_DEFAULTS.containsKey(parts[1]) && property.has("defaultValue")) {
                Object defaults = CORE_DEFAULTS.get(parts[1]);
                Object expected =
                        component(defaults.getClass(), parts[2]).getAccessor().invoke(defaults);
                assertDefault(property, expected);
                checked.put(name(property), expected);
            }
        }
        assertDefault(property("counters.key-retention"), CounterServiceBuilder.DEFAULT_KEY_RETENTION);
        assertThat(checked).hasSize(31);
    }

    @Test
    void everyEnumHasHintsForAllItsValues() {
        List<String> enums = new ArrayList<>();
        for (JsonNode property : properties()) {
            Class<?> type = loadable(property.path("type").asString(""));
            if (type != null && type.isEnum()) {
                enums.add(name(property));
                JsonNode hint = hint(name(property));
                assertThat(hint).as("hints of " + name(property)).isNotNull();
                List<JsonNode> values = list(hint.path("values"));
                assertThat(values)
                        .extracting(value -> value.path("value").asString())
                        .as(name(property))
                        .containsExactlyInAnyOrderElementsOf(Arrays.stream(type.getEnumConstants())
                                .map(constant -> configName((Enum<?>) constant))
                                .toList());
                assertThat(values)
                        .allSatisfy(value -> assertThat(
                                        value.path("description").asString(""))
                                .as(name(property) + "=" + value.path("value").asString())
                                .endsWith("."));
            }
        }
        assertThat(enums)
                .contains(
                        "counters.store",
                        "counters.default-strategy",
                        "counters.jdbc.initialize-schema",
                        "counters.buffered.when-full",
                        "counters.sharded.selection",
                        "counters.sharded.cache",
                        "counters.monotonic.cache",
                        "counters.rate-limits.on-store-failure",
                        "management.endpoint.counters.show-values");
    }

    @Test
    void theKeysOfARuleAndOfASequenceAreDescribed() {
        assertMentionsEveryKey("counters.counters", CountersProperties.CounterProperties.class);
        assertMentionsEveryKey("counters.sequences", CountersProperties.SequenceProperties.class);
        assertMentionsEveryKey("counters.rate-limits.limiters", CountersProperties.LimiterProperties.class);
        assertMentionsEveryKey("counters.rate-limits.routes", CountersProperties.RouteProperties.class);
        assertThat(hint("counters.counters.keys")).isNotNull();
        assertThat(hint("counters.rate-limits.limiters.keys")).isNotNull();
        assertThat(hint("counters.sequences.keys")).isNotNull();
    }

    private static void assertMentionsEveryKey(String property, Class<? extends Record> rule) {
        String description = property(property).path("description").asString();
        assertThat(Arrays.stream(rule.getRecordComponents()).map(component -> "'" + kebab(component.getName()) + "'"))
                .as(property)
                .allSatisfy(key -> assertThat(description).contains(key));
    }

    private static void assertDefault(JsonNode property, Object expected) {
        JsonNode value = property.get("defaultValue");
        Object actual;
        if (expected instanceof Duration) {
            actual = DurationStyle.detectAndParse(value.asString());
        } else if (expected instanceof Enum<?> constant) {
            actual = value.asString().equals(configName(constant)) ? constant : value.asString();
        } else if (expected instanceof Boolean) {
            actual = value.booleanValue();
        } else if (expected instanceof Double) {
            actual = value.doubleValue();
        } else if (expected instanceof Integer) {
            actual = value.intValue();
        } else if (expected instanceof Long) {
            actual = value.longValue();
        } else {
            actual = value.asString();
        }
        assertThat(actual).as(name(property)).isEqualTo(expected);
    }

    private static RecordComponent component(Class<?> settings, String property) {
        String accessor = property.equals("id") ? "nodeId" : camel(property);
        return Arrays.stream(settings.getRecordComponents())
                .filter(c -> c.getName().equals(accessor))
                .findFirst()
                .orElseThrow(() -> new AssertionError(settings.getSimpleName() + " has no " + accessor));
    }

    private static List<JsonNode> properties() {
        return list(METADATA.path("properties")).stream()
                .filter(property ->
                        name(property).startsWith("counters.") || name(property).contains(".counters."))
                .toList();
    }

    private static JsonNode property(String name) {
        return properties().stream()
                .filter(property -> name(property).equals(name))
                .findFirst()
                .orElseThrow();
    }

    private static JsonNode hint(String name) {
        return list(METADATA.path("hints")).stream()
                .filter(hint -> name(hint).equals(name))
                .findFirst()
                .orElse(null);
    }

    private static List<JsonNode> list(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).toList();
    }

    private static String name(JsonNode node) {
        return node.path("name").asString();
    }

    private static Class<?> loadable(String type) {
        try {
            return Class.forName(type);
        } catch (ClassNotFoundException e) {
            return null; // a generic type such as java.util.Map<...>
        }
    }

    private static String configName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static String kebab(String camel) {
        return camel.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
    }

    private static String camel(String kebab) {
        return Arrays.stream(kebab.split("-"))
                .map(part -> Character.toUpperCase(part.charAt(0)) + part.substring(1))
                .collect(Collectors.joining())
                .transform(joined -> Character.toLowerCase(joined.charAt(0)) + joined.substring(1));
    }
}
