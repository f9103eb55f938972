package dev.counters.jdbc;

import dev.counters.contract.BoundedStrategyContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlBoundedStrategyTest extends BoundedStrategyContract {

    PostgreSqlBoundedStrategyTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
