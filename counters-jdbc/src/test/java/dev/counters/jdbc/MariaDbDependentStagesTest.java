package dev.counters.jdbc;

import dev.counters.contract.DependentStagesContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbDependentStagesTest extends DependentStagesContract {

    MariaDbDependentStagesTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
