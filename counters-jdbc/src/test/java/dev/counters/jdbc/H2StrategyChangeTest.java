package dev.counters.jdbc;

import dev.counters.contract.StrategyChangeContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2StrategyChangeTest extends StrategyChangeContract {

    H2StrategyChangeTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
