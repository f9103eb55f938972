package dev.counters.jdbc.reliability;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.strategy.AtomicSettings;

/**
 * A process of the concurrent-schema-initialisation test: waits until an agreed instant, so that both processes
 * start together, builds a store that migrates the schema, and increments a counter 100 times.
 * Arguments: jdbcUrl user password tablePrefix counter startAtEpochMillis.
 */
public final class ChildSchemaInitializer {

    private ChildSchemaInitializer() {}

    public static void main(String[] args) throws InterruptedException {
        try (HikariDataSource dataSource = ChildPool.of(args, 2)) {
            Thread.sleep(Math.max(0, Long.parseLong(args[5]) - System.currentTimeMillis()));
            JooqCounterStore store = JooqCounterStore.builder(dataSource)
                    .tablePrefix(args[3])
                    .migrateSchema(true)
                    .build();
            try (CounterService counters = CounterService.builder(store)
                    .defaultStrategy(AtomicSettings.defaults())
                    .build()) {
                for (int i = 0; i < 100; i++) {
                    counters.increment(args[4]);
                }
            }
        }
        System.out.println("DONE");
    }
}
