package dev.counters.memory;

import dev.counters.contract.StrategyChangeContract;

class InMemoryStrategyChangeTest extends StrategyChangeContract {

    InMemoryStrategyChangeTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
