package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The deadlines that replace the drivers' query timeouts (on PostgreSQL, whose server can sleep on request): a
 * statement past its deadline is cancelled within a tick, one that ended in time is left alone, and so is whatever the
 * connection runs next; the watching thread ends once nothing runs.
 */
class StatementDeadlinesTest {

    @Test
    void aStatementPastItsDeadlineIsCancelledWithinATickAndTheNextOnTheConnectionRuns() throws Exception {
        try (Connection connection = TestDatabase.POSTGRES.dataSource().getConnection()) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> sleep(connection, 5, 1))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("57014"));
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(took)
                    .as("cancelled once a second had passed, within a tick and the cancel's round trip")
                    .isBetween(Duration.ofSeconds(1), Duration.ofMillis(1_000 + 5 * StatementDeadlines.TICK_MILLIS));

            // Statements that end in time leave nothing behind that could cancel what the connection runs next.
            for (int i = 0; i < 200; i++) {
                assertThat(sleep(connection, 0, 1)).isTrue();
            }
            assertThat(sleep(connection, 1.5, 0))
                    .as("a statement without a deadline, run after those whose deadlines passed meanwhile")
                    .isTrue();
        }
        Thread.sleep(1_000 + 10 * StatementDeadlines.TICK_MILLIS);
        assertThat(Thread.getAllStackTraces().keySet())
                .as("the watching thread, a second after the last statement")
                .noneMatch(thread -> thread.getName().equals("counters-statement-deadlines"));
    }

    /** {@code pg_sleep(seconds)}, cancelled after {@code deadline} seconds (0: no deadline). */
    private static boolean sleep(Connection connection, double seconds, int deadline) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT 1 FROM pg_sleep(?)")) {
            statement.setDouble(1, seconds);
            StatementDeadlines.Execution<Boolean> execution = () -> {
                try (ResultSet rows = statement.executeQuery()) {
                    return rows.next() && rows.getInt(1) == 1;
                }
            };
            return deadline == 0 ? execution.run() : StatementDeadlines.run(statement, deadline, execution);
        }
    }
}
