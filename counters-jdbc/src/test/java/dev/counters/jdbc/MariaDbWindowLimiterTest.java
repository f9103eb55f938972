package dev.counters.jdbc;

import dev.counters.internal.ratelimit.WindowLimiterContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbWindowLimiterTest extends WindowLimiterContract {

    MariaDbWindowLimiterTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
