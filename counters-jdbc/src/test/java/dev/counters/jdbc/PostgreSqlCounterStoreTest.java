package dev.counters.jdbc;

import dev.counters.contract.CounterStoreContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlCounterStoreTest extends CounterStoreContract {

    PostgreSqlCounterStoreTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
