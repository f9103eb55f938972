package dev.counters.jdbc;

import dev.counters.contract.RateLimiterContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2RateLimiterTest extends RateLimiterContract {

    H2RateLimiterTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
