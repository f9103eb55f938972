package dev.counters.memory;

import dev.counters.contract.RateLimiterContract;

class InMemoryRateLimiterTest extends RateLimiterContract {

    InMemoryRateLimiterTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
