package dev.counters.jdbc;

import dev.counters.internal.ratelimit.WindowLimiterContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlWindowLimiterTest extends WindowLimiterContract {

    PostgreSqlWindowLimiterTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
