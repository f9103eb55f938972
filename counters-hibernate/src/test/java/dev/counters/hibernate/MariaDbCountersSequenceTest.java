package dev.counters.hibernate;

import dev.counters.jdbc.testing.TestDatabase;

class MariaDbCountersSequenceTest extends CountersSequenceContract {

    MariaDbCountersSequenceTest() {
        super(TestDatabase.MARIADB);
    }
}
