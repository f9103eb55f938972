package dev.counters.jdbc;

import dev.counters.contract.MembershipContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class H2MembershipTest extends MembershipContract {

    H2MembershipTest() {
        super(JooqStores.shared(TestDatabase.H2));
    }
}
