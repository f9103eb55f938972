package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.health.actuate.endpoint.HealthEndpointGroups;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.AvailabilityProbesAutoConfiguration;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.application.AvailabilityHealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The {@code counters} health indicator: on by default, off as Boot's own are, and in readiness as docs/spring-boot.md says. */
class HealthGroupsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withPropertyValues("counters.store=memory")
            .withConfiguration(
                    AutoConfigurations.of(CountersAutoConfiguration.class, CountersHealthAutoConfiguration.class));

    @Test
    void theIndicatorIsOnByDefault() {
        runner.run(context -> assertThat(context).hasBean("countersHealthIndicator"));
    }

    @Test
    void managementHealthCountersEnabledFalseTurnsItOff() {
        runner.withPropertyValues("management.health.counters.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(CountersHealthIndicator.class));
    }

    @Test
    void managementHealthDefaultsEnabledFalseTurnsItOffUnlessCountersIsOn() {
        runner.withPropertyValues("management.health.defaults.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(CountersHealthIndicator.class));
        runner.withPropertyValues("management.health.defaults.enabled=false", "management.health.counters.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(CountersHealthIndicator.class));
    }

    /** The probes configuration of docs/spring-boot.md: counters in readiness (stop routing traffic), never in liveness. */
    @Test
    void theReadmesProbeGroupsPutCountersInReadinessOnly() {
        runner.withConfiguration(AutoConfigurations.of(
                        HealthContributorAutoConfiguration.class,
                        HealthContributorRegistryAutoConfiguration.class,
                        HealthEndpointAutoConfiguration.class,
                        ApplicationAvailabilityAutoConfiguration.class,
                        AvailabilityHealthContributorAutoConfiguration.class,
                        AvailabilityProbesAutoConfiguration.class))
                .withPropertyValues(
                        "management.endpoints.web.exposure.include=health",
                        "management.endpoint.health.probes.enabled=true",
                        "management.endpoint.health.group.readiness.include=readinessState,counters",
                        "management.endpoint.health.group.liveness.include=livenessState")
                .run(context -> {
                    HealthEndpointGroups groups = context.getBean(HealthEndpointGroups.class);
                    assertThat(groups.get("readiness").isMember("counters")).isTrue();
                    assertThat(groups.get("readiness").isMember("readinessState"))
                            .isTrue();
                    assertThat(groups.get("liveness").isMember("counters")).isFalse();
                });
    }
}
