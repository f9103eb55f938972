package dev.counters.jdbc;

import dev.counters.contract.StrategyContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.spi.CounterStore;

class H2StrategyTest extends StrategyContract {

    private static final JooqStores STORES = JooqStores.on(TestDatabase.H2);

    @Override
    protected CounterStore store() {
        return STORES.store();
    }

    @Override
    protected CounterStore anotherStore() {
        return STORES.another();
    }
}
