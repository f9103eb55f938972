package dev.counters.jdbc.testing;

import dev.counters.jdbc.JooqCounterStore;
import java.util.UUID;

/**
 * Two stores on one database with a table prefix of their own, migrated once: the fixture of a store test class.
 */
public final class JooqStores {

    private final TestDatabase database;
    private final String prefix;
    private final JooqCounterStore store;
    private JooqCounterStore another;

    private JooqStores(TestDatabase database) {
        this.database = database;
        this.prefix = "c" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        this.store = JooqCounterStore.builder(database.dataSource()).tablePrefix(prefix).migrateSchema(true).build();
    }

    public static JooqStores on(TestDatabase database) {
        return new JooqStores(database);
    }

    public TestDatabase database() {
        return database;
    }

    public String prefix() {
        return prefix;
    }

    public JooqCounterStore store() {
        return store;
    }

    /** A second store instance on a pool of its own (never closed: it lives as long as the test JVM). */
    public synchronized JooqCounterStore another() {
        if (another == null) {
            another = JooqCounterStore.builder(database.newDataSource(4)).tablePrefix(prefix).build();
        }
        return another;
    }
}
