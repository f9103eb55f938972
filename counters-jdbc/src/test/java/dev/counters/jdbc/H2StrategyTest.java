package dev.counters.jdbc;

import dev.counters.contract.StrategyContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2StrategyTest extends StrategyContract {

    H2StrategyTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
