package dev.counters.memory;

import dev.counters.contract.StoreFixture;
import dev.counters.spi.CounterStore;

/** One in-memory store; memory is not shared between instances, so the one store stands for both. */
enum InMemoryFixture implements StoreFixture {
    INSTANCE;

    private final InMemoryCounterStore store = new InMemoryCounterStore();

    @Override
    public CounterStore store() {
        return store;
    }

    @Override
    public CounterStore anotherStore() {
        return store;
    }
}
