package dev.counters.jdbc;

import dev.counters.contract.DependentStagesContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlDependentStagesTest extends DependentStagesContract {

    PostgreSqlDependentStagesTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
