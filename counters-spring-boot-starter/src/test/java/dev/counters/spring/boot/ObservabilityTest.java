package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.CounterStoreException;
import dev.counters.IdempotencyKey;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.IdempotencyKeys.KeyedDelta;
import dev.counters.spi.IdempotentBatches.AppliedBatch;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.retry.Retry;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Meters, the health indicator and the endpoint: present with their libraries, absent without, never failing. */
class ObservabilityTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("spring.datasource.generate-unique-name=true")
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class,
                    CountersAutoConfiguration.class,
                    CountersMetricsAutoConfiguration.class,
                    CountersHealthAutoConfiguration.class,
                    CountersEndpointAutoConfiguration.class));

    @Test
    void flushesAndCombinedWritesAreTimedThroughTheApplicationsObservationRegistry() {
        runner.withConfiguration(AutoConfigurations.of(ObservationAutoConfiguration.class))
                .withPropertyValues("counters.counters.[views.*].strategy=buffered")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    counters.increment("orders");
                    counters.incrementDurably("views.home", 1).join();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get("counters.store.write")
                                    .tags("rule", "(default)", "strategy", "atomic")
                                    .timer()
                                    .count())
                            .isPositive();
                    assertThat(registry.get("counters.store.flush")
                                    .tags("rule", "views.*", "strategy", "buffered")
                                    .timer()
                                    .count())
                            .isPositive();
                });
    }

    @Test
    void theRetriesAndCircuitBreakersAreInTheLibrarysOwnRegistries() {
        runner.withPropertyValues("counters.counters.[views.*].strategy=buffered")
                .run(context -> {
                    context.getBean(CounterService.class).increment("x");
                    CountersResilience resilience = context.getBean(CountersResilience.class);
                    assertThat(resilience.retries().getAllRetries())
                            .extracting(Retry::getName)
                            .contains("counters-atomic");
                    assertThat(resilience.circuitBreakers().getAllCircuitBreakers())
                            .extracting(CircuitBreaker::getName)
                            .anyMatch(name -> name.startsWith("counters-buffered"));
                });
    }

    @Test
    void metersCountIncrementsFlushesAndPendingDeltasPerRule() {
        runner.withPropertyValues(
                        "counters.counters.[views.*].strategy=buffered",
                        "counters.counters.[views.*].buffered.flush-interval=1h",
                        "counters.counters.[orders.*].strategy=optimistic")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    counters.increment("views.home", 3);
                    counters.increment("views.about");
                    counters.increment("orders.eu");
                    counters.increment("other");
                    counters.increment("other");

                    assertThat(registry.get("counters.increments")
                                    .tags("rule", "views.*", "strategy", "buffered")
                                    .functionCounter()
                                    .count())
                            .isEqualTo(2);
                    assertThat(registry.get("counters.increments")
                                    .tags("rule", "(default)", "strategy", "atomic")
                                    .functionCounter()
                                    .count())
                            .isEqualTo(2);
                    assertThat(registry.get("counters.increments")
                                    .tags("rule", "orders.*")
                                    .functionCounter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("counters.conflicts")
                                    .tags("rule", "orders.*")
                                    .functionCounter()
                                    .count())
                            .isZero();
                    assertThat(registry.get("counters.pending.counters")
                                    .tags("rule", "views.*")
                                    .gauge()
                                    .value())
                            .isEqualTo(2);
                    assertThat(registry.get("counters.pending.increments")
                                    .tags("rule", "views.*")
                                    .gauge()
                                    .value())
                            .isEqualTo(2);
                    assertThat(registry.get("counters.flush.lag")
                                    .tags("rule", "views.*")
                                    .timeGauge()
                                    .value(java.util.concurrent.TimeUnit.NANOSECONDS))
                            .isPositive();

                    counters.flush().join();
                    assertThat(registry.get("counters.flushes")
                                    .tags("rule", "views.*", "outcome", "success")
                                    .functionCounter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("counters.flush")
                                    .tags("rule", "views.*")
                                    .functionTimer()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.find("counters.flushes")
                                    .tags("rule", "(default)")
                                    .meter())
                            .as("only buffered strategies have flush meters")
                            .isNull();
                    assertThat(registry.get("resilience4j.retry.calls")
                                    .tags("name", "counters-atomic")
                                    .functionCounters())
                            .as("Resilience4j's meters of the strategies' retries")
                            .anySatisfy(calls -> assertThat(calls.count()).isEqualTo(2));
                });
    }

    @Test
    void aBoundedRuleHasItsEscrowMetersAndTheEndpointShowsItsBoundsHeldUnitsAndAllowances() {
        runner.withPropertyValues(
                        "counters.counters.[stock.*].strategy=bounded",
                        "counters.counters.[stock.*].min=0",
                        "counters.counters.[stock.*].initial=3",
                        "counters.node.id=web-1",
                        "management.endpoints.web.exposure.include=counters",
                        "management.endpoint.counters.show-values=always")
                .run(context -> {
                    CounterService counters = context.getBean(CounterService.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(counters.tryIncrement("stock.sku", -2)).isTrue();
                    counters.reserve("stock.sku", -1, Duration.ofMinutes(1), IdempotencyKey.of("cart-1"));
                    assertThat(counters.tryIncrement("stock.sku", -1))
                            .as("sold out")
                            .isFalse();

                    assertThat(registry.get("counters.bounded.refusals")
                                    .tags("rule", "stock.*", "strategy", "bounded")
                                    .functionCounter()
                                    .count())
                            .isEqualTo(1);
                    assertThat(registry.get("counters.bounded.pool.changes")
                                    .tags("rule", "stock.*")
                                    .functionCounter()
                                    .count())
                            .as("a quiet counter changes on the pool row")
                            .isEqualTo(2);
                    assertThat(registry.get("counters.bounded.allowance.units")
                                    .tags("rule", "stock.*")
                                    .gauge()
                                    .value())
                            .isZero();
                    assertThat(registry.find("counters.bounded.refusals")
                                    .tags("rule", "(default)")
                                    .meter())
                            .as("only bounded strategies have escrow meters")
                            .isNull();

                    CountersEndpoint.CounterDescriptor stock =
                            context.getBean(CountersEndpoint.class).counter(SecurityContext.NONE, "stock.sku");
                    assertThat(stock.strategy()).isEqualTo("bounded");
                    assertThat(stock.value())
                            .as("available: held units taken out")
                            .isZero();
                    assertThat(stock.bounded()).isNotNull();
                    assertThat(stock.bounded().min()).isZero();
                    assertThat(stock.bounded().max()).isNull();
                    assertThat(stock.bounded().heldTowardMin()).isEqualTo(1);
                    assertThat(stock.bounded().pool()).isEqualTo(new CountersEndpoint.RoomDescriptor(0L, null));
                });
    }

    @Test
    void healthIsDownWhileFlushesFailAndOutOfServiceWhileTheBufferIsFull() {
        runner.withBean(ControllableStore.class)
                .withPropertyValues(
                        "counters.default-strategy=buffered",
                        "counters.buffered.flush-interval=10ms",
                        "counters.buffered.max-pending-counters=1")
                .run(context -> {
                    ControllableStore store = context.getBean(ControllableStore.class);
                    CounterService counters = context.getBean(CounterService.class);
                    HealthIndicator health = context.getBean("countersHealthIndicator", HealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);

                    store.down = true;
                    counters.increment("a");
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> health.health().getStatus() == Status.DOWN);
                    assertThat(health.health().getDetails().toString()).contains("the store is down");

                    store.down = false;
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> health.health().getStatus() == Status.UP);

                    store.stall = new CountDownLatch(1);
                    counters.increment("b");
                    await().atMost(Duration.ofSeconds(10))
                            .until(() -> health.health().getStatus() == Status.OUT_OF_SERVICE);
                    store.stall.countDown();
                    await().atMost(Duration.ofSeconds(20))
                            .until(() -> health.health().getStatus() == Status.UP);
                    assertThat(counters.getExact("a") + counters.getExact("b")).isEqualTo(2);
                });
    }

    @Test
    void theEndpointExistsOnlyWhenExposed() {
        runner.run(context -> assertThat(context).doesNotHaveBean(CountersEndpoint.class));
        runner.withPropertyValues("management.endpoints.web.exposure.include=counters")
                .run(context -> assertThat(context).hasSingleBean(CountersEndpoint.class));
    }

    @Test
    void withoutMicrometerActuatorOrHealthTheCountersStillWork() {
        ApplicationContextRunner bare = new ApplicationContextRunner()
                .withPropertyValues(
                        "spring.datasource.generate-unique-name=true",
                        "management.endpoints.web.exposure.include=counters")
                .withConfiguration(AutoConfigurations.of(
                        DataSourceAutoConfiguration.class,
                        CountersAutoConfiguration.class,
                        CountersMetricsAutoConfiguration.class,
                        CountersHealthAutoConfiguration.class,
                        CountersEndpointAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(
                        "io.micrometer", "org.springframework.boot.actuate", "org.springframework.boot.health"));
        bare.run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(CountersMetrics.class)
                    .doesNotHaveBean(CountersEndpoint.class)
                    .doesNotHaveBean("countersHealthIndicator");
            CounterService counters = context.getBean(CounterService.class);
            counters.increment("works", 2);
            assertThat(counters.get("works")).isEqualTo(2);
        });
    }

    /** A real in-memory store whose batches can be made to fail, or to wait. */
    static class ControllableStore extends ForwardingCounterStore {

        volatile boolean down;
        volatile CountDownLatch stall = new CountDownLatch(0);

        ControllableStore() {
            super(new InMemoryCounterStore());
        }

        @Override
        public AppliedBatch applyBatch(
                String key, String cell, Map<CounterName, Long> deltas, Map<String, KeyedDelta> keyed, Instant now) {
            if (down) {
                throw new CounterStoreException("the store is down (test)", null);
            }
            try {
                stall.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return super.applyBatch(key, cell, deltas, keyed, now);
        }
    }
}
