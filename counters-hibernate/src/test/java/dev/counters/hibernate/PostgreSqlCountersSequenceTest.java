package dev.counters.hibernate;

import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlCountersSequenceTest extends CountersSequenceContract {

    PostgreSqlCountersSequenceTest() {
        super(TestDatabase.POSTGRES);
    }
}
