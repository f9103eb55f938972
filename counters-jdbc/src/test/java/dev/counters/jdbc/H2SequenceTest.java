package dev.counters.jdbc;

import dev.counters.contract.SequenceContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2SequenceTest extends SequenceContract {

    H2SequenceTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
