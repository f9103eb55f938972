package dev.counters.jdbc;

import dev.counters.jdbc.testing.TestDatabase;

class H2FailoverProtectionTest extends FailoverProtectionContract {

    H2FailoverProtectionTest() {
        super(TestDatabase.H2);
    }
}
