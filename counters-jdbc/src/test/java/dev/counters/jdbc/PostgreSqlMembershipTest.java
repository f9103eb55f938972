package dev.counters.jdbc;

import dev.counters.contract.MembershipContract;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;

class PostgreSqlMembershipTest extends MembershipContract {

    PostgreSqlMembershipTest() {
        super(JooqStores.shared(TestDatabase.POSTGRES));
    }
}
