package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.observation.CountersObservationContext;
import dev.counters.observation.CountersObservationContext.Operation;
import dev.counters.observation.CountersObservationConvention;
import dev.counters.observation.DefaultCountersObservationConvention;
import dev.counters.sequence.SequenceService;
import io.micrometer.common.KeyValues;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationPredicate;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The application's CountersObservationConvention bean names and tags the counters.store.* observations, as Boot
 * adopts a convention bean for its HTTP observations; an ObservationPredicate bean or
 * management.observations.enable.counters.store switches them off. Read from the Micrometer registry.
 */
class ObservationConventionBeanTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("spring.datasource.generate-unique-name=true")
            .withConfiguration(AutoConfigurations.of(
                    DataSourceAutoConfiguration.class,
                    MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class,
                    SimpleMetricsExportAutoConfiguration.class,
                    ObservationAutoConfiguration.class,
                    CountersAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    static class Convention {

        @Bean
        CountersObservationConvention countersObservationConvention() {
            return new DefaultCountersObservationConvention() {
                @Override
                public String getName(CountersObservationContext context) {
                    return context.getOperation() == Operation.WRITE
                            ? "billing.counter.writes"
                            : super.getName(context);
                }

                @Override
                public KeyValues getLowCardinalityKeyValues(CountersObservationContext context) {
                    return super.getLowCardinalityKeyValues(context).and("team", "billing");
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class Predicate {

        @Bean
        ObservationPredicate noCountersStoreObservations() {
            return (name, context) -> !name.startsWith("counters.store.");
        }
    }

    @Test
    void theApplicationsConventionRenamesAndTagsTheObservations() {
        runner.withUserConfiguration(Convention.class).run(context -> {
            use(context);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("billing.counter.writes")
                            .tags("rule", "(default)", "strategy", "atomic", "team", "billing")
                            .timer()
                            .count())
                    .isPositive();
            assertThat(registry.get("counters.store.reserve")
                            .tags("mode", "block", "team", "billing")
                            .timer()
                            .count())
                    .isPositive();
            assertThat(registry.find("counters.store.write").timer()).isNull();
        });
    }

    @Test
    void withoutOneTheDefaultNamesAndTagsStay() {
        runner.run(context -> {
            use(context);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("counters.store.write")
                            .tags("rule", "(default)", "strategy", "atomic")
                            .timer()
                            .count())
                    .isPositive();
            assertThat(registry.find("counters.store.write").tagKeys("team").timer())
                    .isNull();
        });
    }

    @Test
    void aPredicateBeanSwitchesThemOff() {
        runner.withUserConfiguration(Predicate.class).run(context -> {
            use(context);
            assertNoCountersStoreMeters(context);
        });
    }

    @Test
    void theObservationEnablePropertySwitchesThemOff() {
        runner.withPropertyValues("management.observations.enable.counters.store=false")
                .run(context -> {
                    use(context);
                    assertNoCountersStoreMeters(context);
                });
    }

    private static void use(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        context.getBean(CounterService.class).increment("orders");
        context.getBean(SequenceService.class).sequence("invoices").next();
    }

    private static void assertNoCountersStoreMeters(AssertableApplicationContext context) {
        assertThat(context.getBean(CounterService.class).get("orders")).isEqualTo(1);
        assertThat(context.getBean(MeterRegistry.class).getMeters())
                .noneMatch(meter -> meter.getId().getName().startsWith("counters.store."));
    }
}
