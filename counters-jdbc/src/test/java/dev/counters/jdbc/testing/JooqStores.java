package dev.counters.jdbc.testing;

import dev.counters.CounterName;
import dev.counters.contract.StoreFixture;
import dev.counters.jdbc.JooqCounterStore;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Two stores on one database with a table prefix of their own, migrated once: the fixture of a store test class.
 */
public final class JooqStores implements StoreFixture {

    private static final Map<TestDatabase, JooqStores> SHARED = new ConcurrentHashMap<>();

    private final TestDatabase database;
    private final String prefix;
    private final JooqCounterStore store;
    private JooqCounterStore another;

    private JooqStores(TestDatabase database) {
        this.database = database;
        this.prefix = "c" + UUID.randomUUID().toString().replace("-", "").substring(0, 10) + "_";
        this.store = JooqCounterStore.builder(database.dataSource())
                .tablePrefix(prefix)
                .migrateSchema(true)
                .build();
    }

    /** A counter's whole stored value whatever its strategy: its cells plus any unfolded deltas, as get reads it. */
    public static long total(JooqCounterStore store, String counter) {
        return store.get(CounterName.of(counter));
    }

    public static JooqStores on(TestDatabase database) {
        return new JooqStores(database);
    }

    /** The stores every contract test class of the run shares on this database (tests keep to their own names). */
    public static JooqStores shared(TestDatabase database) {
        return SHARED.computeIfAbsent(database, JooqStores::new);
    }

    public TestDatabase database() {
        return database;
    }

    public String prefix() {
        return prefix;
    }

    @Override
    public JooqCounterStore store() {
        return store;
    }

    /** A second store instance on a pool of its own (never closed: it lives as long as the test JVM). */
    @Override
    public synchronized JooqCounterStore anotherStore() {
        if (another == null) {
            another = JooqCounterStore.builder(database.newDataSource(4))
                    .tablePrefix(prefix)
                    .build();
        }
        return another;
    }
}
