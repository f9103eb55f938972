package dev.counters.internal.ratelimit;

import dev.counters.contract.StoreFixture;
import dev.counters.memory.InMemoryCounterStore;
import dev.counters.spi.CounterStore;

class InMemoryWindowLimiterTest extends WindowLimiterContract {

    private static final CounterStore STORE = new InMemoryCounterStore();

    InMemoryWindowLimiterTest() {
        super(new StoreFixture() {
            @Override
            public CounterStore store() {
                return STORE;
            }

            @Override
            public CounterStore anotherStore() {
                return STORE; // memory is not shared between instances: the one store stands for both
            }
        });
    }
}
