package dev.counters.memory;

import dev.counters.contract.MembershipContract;

class InMemoryMembershipTest extends MembershipContract {

    InMemoryMembershipTest() {
        super(InMemoryFixture.INSTANCE);
    }
}
