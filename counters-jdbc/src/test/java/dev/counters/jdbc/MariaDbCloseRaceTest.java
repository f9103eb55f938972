package dev.counters.jdbc;

import dev.counters.contract.CloseRaceContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbCloseRaceTest extends CloseRaceContract {

    MariaDbCloseRaceTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
