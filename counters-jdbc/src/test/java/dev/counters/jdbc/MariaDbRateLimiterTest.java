package dev.counters.jdbc;

import dev.counters.contract.RateLimiterContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbRateLimiterTest extends RateLimiterContract {

    MariaDbRateLimiterTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
