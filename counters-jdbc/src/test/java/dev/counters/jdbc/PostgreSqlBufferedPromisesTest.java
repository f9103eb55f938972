package dev.counters.jdbc;

import dev.counters.contract.BufferedPromisesContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

/** The buffered strategy's promises on a database whose flushes are separate commits that overlap across lanes. */
class PostgreSqlBufferedPromisesTest extends BufferedPromisesContract {

    PostgreSqlBufferedPromisesTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }

    @Override
    protected int closeRaceRounds() {
        return 3;
    }
}
