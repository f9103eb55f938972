package dev.counters.jdbc;

import dev.counters.contract.BufferedPromisesContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2BufferedPromisesTest extends BufferedPromisesContract {

    H2BufferedPromisesTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }

    @Override
    protected int closeRaceRounds() {
        return 5;
    }
}
