package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.hibernate.CountersSequence;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.sequence.SequenceService;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The persistence unit's property gets the application's one SequenceService, looked up when Hibernate asks; the
 * auto-configuration backs off without counters-hibernate or Boot's Hibernate, with counters disabled, and with no
 * single SequenceService; a value the application put there stays.
 */
class CountersHibernateAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CountersHibernateAutoConfiguration.class));

    @Test
    void theSequenceServiceBeanGoesUnderThePropertyAsASupplier() {
        runner.withUserConfiguration(OneService.class).run(context -> {
            Map<String, Object> properties = customized(context.getBean(HibernatePropertiesCustomizer.class));
            assertThat(properties.get(CountersSequence.SEQUENCE_SERVICE))
                    .isInstanceOfSatisfying(
                            Supplier.class,
                            supplier -> assertThat(supplier.get()).isSameAs(context.getBean(SequenceService.class)));
        });
    }

    @Test
    void aValueTheApplicationPutThereStays() {
        runner.withUserConfiguration(OneService.class).run(context -> {
            Map<String, Object> properties = new HashMap<>();
            properties.put(CountersSequence.SEQUENCE_SERVICE, "the application's");
            context.getBean(HibernatePropertiesCustomizer.class).customize(properties);
            assertThat(properties).containsEntry(CountersSequence.SEQUENCE_SERVICE, "the application's");
        });
    }

    @Test
    void backsOff() {
        runner.run(context -> assertThat(context).doesNotHaveBean(HibernatePropertiesCustomizer.class));
        runner.withUserConfiguration(TwoServices.class)
                .run(context -> assertThat(context).doesNotHaveBean(HibernatePropertiesCustomizer.class));
        runner.withUserConfiguration(OneService.class)
                .withPropertyValues("counters.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(HibernatePropertiesCustomizer.class));
        runner.withUserConfiguration(OneService.class)
                .withClassLoader(new FilteredClassLoader(CountersSequence.class))
                .run(context -> assertThat(context).doesNotHaveBean(HibernatePropertiesCustomizer.class));
        runner.withUserConfiguration(OneService.class)
                .withClassLoader(new FilteredClassLoader(HibernatePropertiesCustomizer.class))
                .run(context -> assertThat(context).doesNotHaveBean(HibernatePropertiesCustomizer.class));
    }

    private static Map<String, Object> customized(HibernatePropertiesCustomizer customizer) {
        Map<String, Object> properties = new HashMap<>();
        customizer.customize(properties);
        return properties;
    }

    private static SequenceService service() {
        return SequenceService.builder(new InMemoryCounterStore()).build();
    }

    @Configuration(proxyBeanMethods = false)
    static class OneService {

        @Bean
        SequenceService sequenceService() {
            return service();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoServices {

        @Bean
        SequenceService first() {
            return service();
        }

        @Bean
        SequenceService second() {
            return service();
        }
    }
}
