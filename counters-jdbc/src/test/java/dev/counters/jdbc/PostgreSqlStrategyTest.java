package dev.counters.jdbc;

import dev.counters.contract.StrategyContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlStrategyTest extends StrategyContract {

    PostgreSqlStrategyTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
