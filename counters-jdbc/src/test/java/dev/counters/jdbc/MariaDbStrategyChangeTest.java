package dev.counters.jdbc;

import dev.counters.contract.StrategyChangeContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbStrategyChangeTest extends StrategyChangeContract {

    MariaDbStrategyChangeTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
