package dev.counters.jdbc;

import dev.counters.contract.CloseRaceContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlCloseRaceTest extends CloseRaceContract {

    PostgreSqlCloseRaceTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
