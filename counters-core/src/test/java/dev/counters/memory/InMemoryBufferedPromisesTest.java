package dev.counters.memory;

import dev.counters.contract.BufferedPromisesContract;

class InMemoryBufferedPromisesTest extends BufferedPromisesContract {

    InMemoryBufferedPromisesTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
