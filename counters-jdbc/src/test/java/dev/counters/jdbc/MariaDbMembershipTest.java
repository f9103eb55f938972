package dev.counters.jdbc;

import dev.counters.contract.MembershipContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class MariaDbMembershipTest extends MembershipContract {

    MariaDbMembershipTest() {
        super(JooqStores.shared(TestDatabase.MARIADB));
    }
}
