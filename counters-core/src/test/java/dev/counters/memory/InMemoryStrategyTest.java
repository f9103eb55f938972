package dev.counters.memory;

import dev.counters.contract.StrategyContract;
import dev.counters.spi.CounterStore;

class InMemoryStrategyTest extends StrategyContract {

    private final InMemoryCounterStore store = new InMemoryCounterStore();

    @Override
    protected CounterStore store() {
        return store;
    }

    @Override
    protected CounterStore anotherStore() {
        return store;
    }
}
