package dev.counters.jdbc;

import dev.counters.contract.CounterStoreContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbCounterStoreTest extends CounterStoreContract {

    MariaDbCounterStoreTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
