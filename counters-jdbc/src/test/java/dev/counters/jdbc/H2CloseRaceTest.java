package dev.counters.jdbc;

import dev.counters.contract.CloseRaceContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2CloseRaceTest extends CloseRaceContract {

    H2CloseRaceTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
