package dev.counters.jdbc;

import dev.counters.contract.StrategyContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbStrategyTest extends StrategyContract {

    MariaDbStrategyTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
