package dev.counters.jdbc;

import dev.counters.contract.BoundedStrategyContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbBoundedStrategyTest extends BoundedStrategyContract {

    MariaDbBoundedStrategyTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
