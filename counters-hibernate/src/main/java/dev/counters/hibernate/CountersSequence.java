package dev.counters.hibernate;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import org.hibernate.annotations.IdGeneratorType;

/**
 * Gives an entity's id (a {@code Long}, {@code long}, {@code Integer} or {@code int}) the next number of a block
 * sequence of counters, before the insert:
 *
 * <pre>{@code
 * @Entity
 * class Order {
 *     @Id
 *     @CountersSequence("orders")
 *     Long id;
 * }
 * }</pre>
 *
 * <p>The numbers come from {@link dev.counters.sequence.SequenceService#sequence(String)} of the service set under
 * {@link #SEQUENCE_SERVICE} in the persistence unit's properties (the Spring Boot starter sets it). They are reserved
 * in blocks, in transactions of the library's own, never in the entity's: a rolled-back insert leaves a gap, never a
 * duplicate. Unique across threads, processes and restarts; increasing for each caller. Since ids are known before
 * the insert, Hibernate batches inserts ({@code hibernate.jdbc.batch_size}). A gapless sequence is refused: its
 * number would take part in the entity's transaction.
 */
@IdGeneratorType(CountersSequenceGenerator.class)
@Target({FIELD, METHOD})
@Retention(RUNTIME)
@Documented
public @interface CountersSequence {

    /**
     * The persistence-unit property that holds the {@link dev.counters.sequence.SequenceService} (the object itself,
     * in the properties map the {@code EntityManagerFactory} is built with), or a {@code Supplier} of it, asked once
     * at the first id (for containers that make the service after the {@code EntityManagerFactory}).
     */
    String SEQUENCE_SERVICE = "dev.counters.sequence-service";

    /** The sequence's name (it follows the counter-name rules); its settings are those the service gives the name. */
    String value();
}
