package dev.counters.memory;

import dev.counters.contract.SequenceContract;

class InMemorySequenceTest extends SequenceContract {

    InMemorySequenceTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
