package dev.counters.jdbc;

import dev.counters.contract.SequenceContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbSequenceTest extends SequenceContract {

    MariaDbSequenceTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
