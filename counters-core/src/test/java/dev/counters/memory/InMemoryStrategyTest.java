package dev.counters.memory;

import dev.counters.contract.StrategyContract;

class InMemoryStrategyTest extends StrategyContract {

    InMemoryStrategyTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
