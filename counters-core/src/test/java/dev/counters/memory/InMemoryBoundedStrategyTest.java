package dev.counters.memory;

import dev.counters.contract.BoundedStrategyContract;

class InMemoryBoundedStrategyTest extends BoundedStrategyContract {

    InMemoryBoundedStrategyTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
