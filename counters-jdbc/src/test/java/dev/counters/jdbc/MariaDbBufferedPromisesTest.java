package dev.counters.jdbc;

import dev.counters.contract.BufferedPromisesContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

/** The buffered strategy's promises on a database whose flushes are separate commits that overlap across lanes. */
class MariaDbBufferedPromisesTest extends BufferedPromisesContract {

    MariaDbBufferedPromisesTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }

    @Override
    protected int closeRaceRounds() {
        return 3;
    }
}
