package dev.counters.jdbc;

import dev.counters.contract.StrategyContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;

class MariaDbStrategyTest extends StrategyContract {

    private static final JooqStores STORES = JooqStores.on(TestDatabase.MARIADB);

    @Override
    protected CounterStore store() {
        return STORES.store();
    }

    @Override
    protected CounterStore anotherStore() {
        return STORES.another();
    }
}
