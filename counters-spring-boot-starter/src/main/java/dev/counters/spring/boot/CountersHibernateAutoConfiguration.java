package dev.counters.spring.boot;

import dev.counters.hibernate.CountersSequence;
import dev.counters.sequence.SequenceService;
import java.util.function.Supplier;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * {@link CountersSequence} ids from the application's {@link SequenceService}, when {@code counters-hibernate} and
 * Boot's Hibernate are on the classpath: the persistence unit's property {@value CountersSequence#SEQUENCE_SERVICE}
 * gets the bean, unless the application set it. The bean is looked up at the first id, not while the {@code
 * EntityManagerFactory} is built: the service is made after the database initializers, which the {@code
 * EntityManagerFactory} is one of under {@code spring.jpa.defer-datasource-initialization}.
 */
@AutoConfiguration(after = CountersAutoConfiguration.class)
@ConditionalOnClass({CountersSequence.class, HibernatePropertiesCustomizer.class})
@ConditionalOnSingleCandidate(SequenceService.class)
@ConditionalOnBooleanProperty(name = "counters.enabled", matchIfMissing = true)
public final class CountersHibernateAutoConfiguration {

    @Bean
    HibernatePropertiesCustomizer countersSequenceServiceHibernateProperty(ObjectProvider<SequenceService> sequences) {
        Supplier<SequenceService> service = sequences::getObject;
        return properties -> properties.putIfAbsent(CountersSequence.SEQUENCE_SERVICE, service);
    }
}
