package dev.counters.jdbc;

import dev.counters.internal.ratelimit.WindowLimiterContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2WindowLimiterTest extends WindowLimiterContract {

    H2WindowLimiterTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
