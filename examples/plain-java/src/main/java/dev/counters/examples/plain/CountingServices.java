package dev.counters.examples.plain;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.sequence.SequenceService;
import dev.counters.spi.CounterStore;
import dev.counters.strategy.AtomicSettings;
import dev.counters.strategy.BufferedSettings;
import dev.counters.strategy.ShardedSettings;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The library's objects on one H2 database: what the Spring Boot starter would build from configuration, built by
 * hand. Closing writes what buffered counters still hold before the database is let go.
 */
record CountingServices(CounterService counters, SequenceService sequences, JdbcConnectionPool pool)
        implements AutoCloseable {

    static CountingServices open(String jdbcUrl) {
        JdbcConnectionPool pool = JdbcConnectionPool.create(jdbcUrl, "sa", "");
        try {
            CounterStore store =
                    JooqCounterStore.builder(pool).migrateSchema(true).build();
            CounterService counters = CounterService.builder(store)
                    .defaultStrategy(AtomicSettings.defaults())
                    // The hottest writes: spread over shard rows, so concurrent increments do not queue on one row.
                    .strategy("page-views.*", ShardedSettings.defaults())
                    // Counted in memory, written once a second for all such counters in one transaction.
                    .strategy("likes.*", BufferedSettings.defaults())
                    .build();
            return new CountingServices(counters, SequenceService.builder(store).build(), pool);
        } catch (RuntimeException e) {
            pool.dispose();
            throw e;
        }
    }

    @Override
    public void close() {
        sequences.close();
        counters.close(); // flushes buffered counters, so it must come before the pool goes
        pool.dispose();
    }
}
