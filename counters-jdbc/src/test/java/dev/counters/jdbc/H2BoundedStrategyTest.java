package dev.counters.jdbc;

import dev.counters.contract.BoundedStrategyContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2BoundedStrategyTest extends BoundedStrategyContract {

    H2BoundedStrategyTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
