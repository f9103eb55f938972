package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterOverflowException;
import dev.counters.CounterService;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * Issue 31, item 12: a write that joins the caller's transaction leaves the caller's session as it found it. The
 * caller's transaction is a JDBC transaction bound to the thread, as a transaction manager binds it.
 */
class JoinedSideEffectsTest {

    private static final ThreadLocal<Connection> CURRENT = new ThreadLocal<>();

    private static JooqCounterStore joiningStore(JooqStores stores) {
        return JooqCounterStore.builder(stores.database().dataSource())
                .tablePrefix(stores.prefix())
                .callerTransactions(CURRENT::get)
                .build();
    }

    /** As text: LAST_INSERT_ID() is unsigned, and a value a reservation left there may not fit a long. */
    private static String value(Statement statement, String query) throws Exception {
        try (ResultSet rows = statement.executeQuery(query)) {
            rows.next();
            return rows.getString(1);
        }
    }

    @Test
    void aJoinedGaplessNumberLeavesTheCallersLastInsertIdAlone() throws Exception {
        JooqStores stores = JooqStores.on(TestDatabase.MARIADB);
        String orders = stores.prefix() + "app_orders";
        SequenceService sequences = SequenceService.builder(joiningStore(stores))
                .defaultSettings(SequenceSettings.gapless())
                .build();
        try (Connection connection = stores.database().dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("create table " + orders + " (id bigint auto_increment primary key, number bigint)");
            statement.execute("alter table " + orders + " auto_increment = 500");
            connection.setAutoCommit(false);
            CURRENT.set(connection);
            try {
                statement.execute("insert into " + orders + " (number) values (0)");
                assertThat(value(statement, "select last_insert_id()")).isEqualTo("500");
                long first = sequences.next("invoices");
                long second = sequences.next("invoices");
                // The caller reads the id of its own insert, as it would to link a child row.
                assertThat(value(statement, "select last_insert_id()")).isEqualTo("500");
                connection.commit();
                assertThat(first).isEqualTo(1);
                assertThat(second).isEqualTo(2);
            } finally {
                CURRENT.remove();
                connection.setAutoCommit(true);
            }
        }
        assertThat(sequences.next("invoices")).isEqualTo(3);
    }

    @Test
    void anOverflowInsideAJoinedTransactionOnPostgreSqlLeavesTheCallersTransactionUsable() throws Exception {
        JooqStores stores = JooqStores.on(TestDatabase.POSTGRES);
        CounterService counters = CounterService.builder(joiningStore(stores)).build(); // atomic: joins
        counters.increment("full", Long.MAX_VALUE - 1);
        try (Connection connection = stores.database().dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            connection.setAutoCommit(false);
            CURRENT.set(connection);
            try {
                counters.increment("orders", 5);
                assertThatThrownBy(() -> counters.increment("full", 2)).isInstanceOf(CounterOverflowException.class);
                // The exception says nothing was written: the caller's transaction goes on, and commits its own.
                assertThat(value(statement, "select 42")).isEqualTo("42");
                counters.increment("orders", 1);
                connection.commit();
            } finally {
                CURRENT.remove();
                connection.setAutoCommit(true);
            }
        }
        assertThat(counters.getExact("orders")).isEqualTo(6);
        assertThat(counters.getExact("full")).isEqualTo(Long.MAX_VALUE - 1);
    }
}
