/**
 * A {@link dev.counters.spi.CounterStore} on SQL databases: {@link dev.counters.jdbc.JooqCounterStore}.
 */
@NullMarked
package dev.counters.jdbc;

import org.jspecify.annotations.NullMarked;
