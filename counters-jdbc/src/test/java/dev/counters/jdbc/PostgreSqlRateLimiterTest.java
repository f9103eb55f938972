package dev.counters.jdbc;

import dev.counters.contract.RateLimiterContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlRateLimiterTest extends RateLimiterContract {

    PostgreSqlRateLimiterTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
