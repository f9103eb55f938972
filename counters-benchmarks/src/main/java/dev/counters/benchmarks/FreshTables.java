package dev.counters.benchmarks;

import dev.counters.jdbc.JooqCounterStore;
import java.util.UUID;
import javax.sql.DataSource;

/** Every run works on tables of its own, so that runs on one database server never see each other's rows. */
final class FreshTables {

    private FreshTables() {}

    /** A table, sequence or prefix name no other run uses. */
    static String name(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    }

    /** A store on newly migrated tables with a prefix of their own. */
    static JooqCounterStore store(DataSource dataSource) {
        return store(dataSource, name("b") + "_");
    }

    /** A store on the tables of {@code prefix}, migrated if they are new. */
    static JooqCounterStore store(DataSource dataSource, String prefix) {
        return JooqCounterStore.builder(dataSource)
                .tablePrefix(prefix)
                .migrateSchema(true)
                .build();
    }
}
