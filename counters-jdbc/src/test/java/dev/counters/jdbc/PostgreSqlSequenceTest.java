package dev.counters.jdbc;

import dev.counters.contract.SequenceContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlSequenceTest extends SequenceContract {

    PostgreSqlSequenceTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
