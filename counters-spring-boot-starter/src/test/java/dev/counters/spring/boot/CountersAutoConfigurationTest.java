package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.BufferFullException;
import dev.counters.CounterService;
import dev.counters.jdbc.SchemaNotInitializedException;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.spi.CounterStore;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class CountersAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("spring.datasource.generate-unique-name=true")
            .withConfiguration(
                    AutoConfigurations.of(DataSourceAutoConfiguration.class, CountersAutoConfiguration.class));

    @Test
    void zeroConfigurationGivesAWorkingCounterServiceOnTheEmbeddedDatabase() {
        runner.run(context -> {
            CounterService counters = context.getBean(CounterService.class);
            counters.increment("page-views");
            counters.increment("page-views", 4);
            assertThat(counters.get("page-views")).isEqualTo(5);
            assertThat(counters.counter("page-views").strategy()).isEqualTo("atomic");
            assertThat(RealApplicationTest.tableExists(context.getBean(DataSource.class), "COUNTER_CELLS"))
                    .isTrue();
        });
    }

    @Test
    void tablePrefixNamesTheTables() {
        runner.withPropertyValues("counters.jdbc.table-prefix=app_").run(context -> {
            context.getBean(CounterService.class).increment("likes");
            DataSource dataSource = context.getBean(DataSource.class);
            assertThat(RealApplicationTest.tableExists(dataSource, "APP_COUNTER_CELLS"))
                    .isTrue();
            assertThat(RealApplicationTest.tableExists(dataSource, "COUNTER_CELLS"))
                    .isFalse();
        });
    }

    @Test
    void schemaInitialisationCanBeTurnedOffAndThenStartupChecksTheTables() {
        runner.withPropertyValues("counters.jdbc.initialize-schema=never").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .isInstanceOf(SchemaNotInitializedException.class)
                    .hasMessageContaining("counter_cells");
        });
    }

    @Test
    void defaultStrategyIsConfigurable() {
        runner.withPropertyValues("counters.default-strategy=atomic")
                .run(context -> assertThat(context.getBean(CounterService.class)
                                .counter("x")
                                .strategy())
                        .isEqualTo("atomic"));
    }

    @Test
    void strategiesAreChosenPerCounterByNameAndPattern() {
        runner.withPropertyValues(
                        "counters.default-strategy=optimistic",
                        "counters.counters.page-views.strategy=sharded",
                        "counters.counters.[orders.*].strategy=atomic",
                        "counters.counters.[likes.*].strategy=node",
                        "counters.sharded.shards=4",
                        "counters.node.id=web-1")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    assertThat(counters.counter("page-views").strategy()).isEqualTo("sharded");
                    assertThat(counters.counter("orders.eu").strategy()).isEqualTo("atomic");
                    assertThat(counters.counter("likes.post-1").strategy()).isEqualTo("node");
                    assertThat(counters.counter("other").strategy()).isEqualTo("optimistic");
                    for (int i = 0; i < 200; i++) {
                        counters.increment("page-views");
                    }
                    assertThat(counters.admin().cells("page-views")).hasSize(4);
                    counters.increment("likes.post-1", 3);
                    assertThat(counters.admin().cells("likes.post-1")).containsOnlyKeys("n:web-1:+");
                    assertThat(counters.get(java.util.List.of("page-views", "likes.post-1", "other")))
                            .containsExactly(
                                    java.util.Map.entry("page-views", 200L),
                                    java.util.Map.entry("likes.post-1", 3L),
                                    java.util.Map.entry("other", 0L));
                });
    }

    @Test
    void writeBehindAndLogStrategiesAreConfigurable() {
        runner.withPropertyValues(
                        "counters.counters.[views.*].strategy=buffered",
                        "counters.counters.[orders.*].strategy=delta-log",
                        "counters.counters.[ids.*].strategy=monotonic",
                        "counters.buffered.flush-interval=10ms",
                        "counters.monotonic.chance-to-write=1.0")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    assertThat(counters.counter("views.home").strategy()).isEqualTo("buffered");
                    assertThat(counters.counter("orders.eu").strategy()).isEqualTo("delta-log");
                    assertThat(counters.counter("ids.invoice").strategy()).isEqualTo("monotonic");
                    counters.increment("views.home", 2);
                    counters.incrementDurably("views.home", 1).join();
                    counters.increment("orders.eu", 5);
                    assertThat(counters.incrementAndGet("ids.invoice", 1)).isEqualTo(1);
                    assertThat(counters.get(java.util.List.of("views.home", "orders.eu", "ids.invoice"))
                                    .values())
                            .containsExactly(3L, 5L, 1L);
                });
    }

    @Test
    void windowsAndKeyRetentionAreConfigurablePerRule() {
        runner.withPropertyValues(
                        "counters.counters.[api.*].strategy=sharded",
                        "counters.counters.[api.*].window=1h",
                        "counters.counters.[api.*].retained-windows=24",
                        "counters.counters.[api.*].zone=Europe/Berlin",
                        "counters.counters.[carts.*].expire-after-idle=1h",
                        "counters.key-retention=2h")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("api.calls", 3);
                    counters.increment("api.calls", 1, dev.counters.IdempotencyKey.of("request-1"));
                    counters.increment("api.calls", 1, dev.counters.IdempotencyKey.of("request-1"));
                    dev.counters.WindowedCounter windows = counters.windowed("api.calls");
                    assertThat(windows.settings())
                            .isEqualTo(dev.counters.WindowSettings.of(java.time.Duration.ofHours(1))
                                    .withRetainedWindows(24)
                                    .withZone(java.time.ZoneId.of("Europe/Berlin")));
                    assertThat(windows.current()).isEqualTo(4);
                    assertThat(counters.counter("api.calls").strategy()).isEqualTo("sharded");
                    assertThat(counters.admin().cells("api.calls").values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum())
                            .as("the current window's cells")
                            .isEqualTo(4);
                });
    }

    @Test
    void sequencesAreConfigurablePerName() {
        runner.withPropertyValues(
                        "counters.sequences.[orders].block-size=10",
                        "counters.sequences.[orders].start=1000",
                        "counters.sequences.[invoice.*].mode=gapless")
                .run(context -> {
                    SequenceService sequences = context.getBean(SequenceService.class);
                    assertThat(sequences.next("orders")).isEqualTo(1000);
                    assertThat(sequences.next("orders")).isEqualTo(1001);
                    assertThat(sequences.next("invoice.2026")).isEqualTo(1);
                    assertThat(sequences.next("invoice.2026")).isEqualTo(2);
                    assertThat(sequences.next("other")).isEqualTo(1);
                });
        runner.withPropertyValues("counters.sequences.[orders].block-size=0")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("counters.sequences")
                        .hasStackTraceContaining("block-size must be >= 1, was 0"));
    }

    @Test
    void aRuleCanChangeItsStrategysSettings() {
        runner.withPropertyValues(
                        "counters.counters.page-views.strategy=sharded",
                        "counters.counters.page-views.sharded.shards=3",
                        "counters.counters.[likes.*].strategy=buffered",
                        "counters.counters.[likes.*].buffered.flush-interval=1h",
                        "counters.counters.[orders.*].strategy=optimistic",
                        "counters.counters.[orders.*].optimistic.max-attempts=1",
                        "counters.buffered.flush-interval=10ms")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    CounterStore store = context.getBean(CounterStore.class);
                    for (int i = 0; i < 300; i++) {
                        counters.increment("page-views");
                    }
                    assertThat(counters.admin().cells("page-views")).hasSize(3);
                    counters.increment("likes.post-1", 2);
                    counters.increment("other", 1);
                    assertThat(counters.get("likes.post-1"))
                            .as("pending on this node")
                            .isEqualTo(2);
                    assertThat(store.get(dev.counters.CounterName.of("likes.post-1")))
                            .as("not flushed within the hour")
                            .isZero();
                    counters.flush().join();
                    assertThat(store.get(dev.counters.CounterName.of("likes.post-1")))
                            .isEqualTo(2);
                    assertThat(counters.counter("orders.eu").strategy()).isEqualTo("optimistic");
                });
    }

    @Test
    void aRuleOverridesOneSettingAndInheritsTheOthersFromItsStrategysGroup() {
        // when-full and block-timeout could not be set per counter before; the others come from the group.
        runner.withPropertyValues(
                        "counters.default-strategy=buffered",
                        "counters.buffered.flush-interval=1h",
                        "counters.buffered.max-pending-counters=1",
                        "counters.counters.[roomy.*].buffered.max-pending-counters=2",
                        "counters.counters.[waiting.*].buffered.when-full=block",
                        "counters.counters.[waiting.*].buffered.block-timeout=5s")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    CounterStore store = context.getBean(CounterStore.class);
                    counters.increment("a");
                    assertThat(refusedNewCounters(counters, "b")).isPositive();
                    counters.increment("roomy.a");
                    counters.increment("roomy.b");
                    assertThat(refusedNewCounters(counters, "roomy.c")).isPositive();
                    counters.increment("waiting.a");
                    // Waits while flushes, started because the buffer is full, make room: in a cold JVM the first flush
                    // of a
                    // strategy takes a few hundred milliseconds (class loading, jOOQ rendering its batch), so the wait
                    // may too.
                    counters.increment("waiting.b");
                    assertThat(store.get(dev.counters.CounterName.of("waiting.a")))
                            .as("flushed to make room, long before the group's hour-long interval")
                            .isEqualTo(1);
                });
    }

    /**
     * How many of 100 new counters a full buffer refused. Not just the first: a full buffer makes the flusher due at
     * once, and a flush that ran between two increments makes room for the next.
     */
    private static int refusedNewCounters(CounterService counters, String prefix) {
        int refused = 0;
        for (int i = 0; i < 100; i++) {
            try {
                counters.increment(prefix + i);
            } catch (BufferFullException e) {
                refused++;
            }
        }
        return refused;
    }

    @Test
    void aRuleSettingThatDoesNotFitItsStrategyFailsStartup() {
        runner.withPropertyValues("counters.counters.page-views.sharded.shards=4")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining(
                                "counters.counters.[page-views].sharded holds settings of the sharded strategy, "
                                        + "but these counters use the atomic strategy"));
        runner.withPropertyValues(
                        "counters.counters.[likes.*].strategy=buffered",
                        "counters.counters.[likes.*].buffered.flush-interval=0s")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining("counters.counters.[likes.*].buffered")
                        .hasStackTraceContaining("flush-interval"));
        runner.withPropertyValues("counters.counters.x.strategy=sharded", "counters.counters.x.sharded.shards=5000")
                .run(context -> assertThat(context.getStartupFailure())
                        .hasStackTraceContaining(
                                "counters.counters.[x].sharded: sharded shards must be between 1 and 1024, was 5000"));
    }

    @Test
    void everyPropertyHasAGeneratedDescription() throws Exception {
        JsonNode metadata = JsonMapper.builder()
                .build()
                .readTree(getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json"));
        List<String> undescribed = new ArrayList<>();
        for (JsonNode property : metadata.get("properties")) {
            String description = property.path("description").asString("");
            if (description.isBlank() || !Character.isUpperCase(description.charAt(0)) || description.contains("{@")) {
                undescribed.add(property.get("name").asString());
            }
        }
        assertThat(metadata.get("properties").size()).isGreaterThan(25);
        assertThat(undescribed).isEmpty();
    }

    @Test
    void anInvalidTablePrefixFailsStartupWithTheRule() {
        runner.withPropertyValues("counters.jdbc.table-prefix=bad-prefix").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("Table prefix 'bad-prefix' is invalid");
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesItsOwnBeans() {
        runner.withUserConfiguration(OwnStore.class).run(context -> {
            assertThat(context).hasSingleBean(CounterStore.class);
            assertThat(context.getBean(CounterStore.class)).isInstanceOf(InMemoryCounterStore.class);
            context.getBean(CounterService.class).increment("x");
            assertThat(context.getBean(CounterStore.class).get(dev.counters.CounterName.of("x")))
                    .isEqualTo(1);
        });
        runner.withUserConfiguration(OwnService.class).run(context -> {
            assertThat(context).hasSingleBean(CounterService.class);
            assertThat(context.getBean(CounterService.class)).isSameAs(OwnService.SERVICE);
        });
    }

    @Test
    void withoutADataSourceThereIsNoCounterService() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CountersAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CounterService.class));
    }

    @Test
    void withoutTheJdbcModuleNothingIsConfigured() {
        runner.withClassLoader(new FilteredClassLoader(dev.counters.jdbc.JooqCounterStore.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CounterService.class));
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnStore {
        @Bean
        CounterStore myStore() {
            return new InMemoryCounterStore();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnService {
        static final CounterService SERVICE =
                CounterService.builder(new InMemoryCounterStore()).build();

        @Bean
        CounterService myCounters() {
            return SERVICE;
        }
    }
}
