package dev.counters.memory;

import dev.counters.contract.CloseRaceContract;

class InMemoryCloseRaceTest extends CloseRaceContract {

    InMemoryCloseRaceTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
