package dev.counters.jdbc;

import java.sql.Connection;
import org.jspecify.annotations.Nullable;

/**
 * Finds the transaction the calling thread is in, so that a {@link JooqCounterStore} can take part in it (see
 * {@link dev.counters.spi.CounterStore#callerTransaction()}). The Spring Boot starter supplies one for Spring-managed
 * transactions; without Spring, any framework that binds a connection to the thread can be adapted in one lambda.
 */
@FunctionalInterface
public interface CallerTransactions {

    /**
     * The connection of the calling thread's transaction on the store's database, or {@code null} when it is in
     * none. The store runs statements on it and nothing else: it never commits, rolls back or closes it.
     */
    @Nullable
    Connection currentConnection();
}
