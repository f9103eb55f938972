/**
 * JPA entity ids from the block sequences of counters: {@link dev.counters.hibernate.CountersSequence} on an entity's
 * id, through Hibernate 7's {@code @IdGeneratorType}.
 */
@NullMarked
package dev.counters.hibernate;

import org.jspecify.annotations.NullMarked;
