package dev.counters.jdbc;

import dev.counters.contract.CounterStoreContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2CounterStoreTest extends CounterStoreContract {

    H2CounterStoreTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
