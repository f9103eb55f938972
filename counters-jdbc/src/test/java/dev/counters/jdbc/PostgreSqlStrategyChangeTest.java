package dev.counters.jdbc;

import dev.counters.contract.StrategyChangeContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlStrategyChangeTest extends StrategyChangeContract {

    PostgreSqlStrategyChangeTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
