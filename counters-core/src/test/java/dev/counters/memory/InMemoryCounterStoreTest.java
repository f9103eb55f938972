package dev.counters.memory;

import dev.counters.contract.CounterStoreContract;

class InMemoryCounterStoreTest extends CounterStoreContract {

    InMemoryCounterStoreTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
