package dev.counters.memory;

import dev.counters.contract.CounterStoreContract;
import dev.counters.spi.CounterStore;

class InMemoryCounterStoreTest extends CounterStoreContract {

    private final InMemoryCounterStore store = new InMemoryCounterStore();

    @Override
    protected CounterStore store() {
        return store;
    }

    @Override
    protected CounterStore anotherStore() {
        return store; // memory is not shared between instances; the one store stands for both
    }
}
