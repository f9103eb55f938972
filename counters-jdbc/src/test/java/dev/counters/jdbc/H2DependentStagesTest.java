package dev.counters.jdbc;

import dev.counters.contract.DependentStagesContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2DependentStagesTest extends DependentStagesContract {

    H2DependentStagesTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
