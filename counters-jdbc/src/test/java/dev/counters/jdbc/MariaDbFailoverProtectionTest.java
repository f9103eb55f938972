package dev.counters.jdbc;

import dev.counters.jdbc.testing.TestDatabase;

class MariaDbFailoverProtectionTest extends FailoverProtectionContract {

    MariaDbFailoverProtectionTest() {
        super(TestDatabase.MARIADB);
    }
}
