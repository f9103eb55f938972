package dev.counters.hibernate;

import dev.counters.jdbc.testing.TestDatabase;

class H2CountersSequenceTest extends CountersSequenceContract {

    H2CountersSequenceTest() {
        super(TestDatabase.H2);
    }
}
