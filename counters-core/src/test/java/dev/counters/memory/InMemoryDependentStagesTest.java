package dev.counters.memory;

import dev.counters.contract.DependentStagesContract;

class InMemoryDependentStagesTest extends DependentStagesContract {

    InMemoryDependentStagesTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
