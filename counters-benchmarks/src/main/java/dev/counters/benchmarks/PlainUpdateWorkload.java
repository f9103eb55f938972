package dev.counters.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import javax.sql.DataSource;

/** The baseline: one row per counter, {@code UPDATE … SET v = v + 1} per increment, one commit each. */
class PlainUpdateWorkload implements Workload {

    private final DataSource dataSource;
    private final String table;
    private final int counters;

    PlainUpdateWorkload(DataSource dataSource, int counters) throws Exception {
        this.dataSource = dataSource;
        this.table = FreshTables.name("plain_");
        this.counters = counters;
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, v BIGINT NOT NULL)");
            for (int i = 0; i < counters; i++) {
                statement.execute("INSERT INTO " + table + " (id, v) VALUES (" + i + ", 0)");
            }
        }
    }

    @Override
    public void increment(int counter) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement update = connection.prepareStatement(
                        "UPDATE " + table + " SET v = v + 1 WHERE id = ?")) {
            update.setInt(1, counter);
            update.executeUpdate();
        }
    }

    @Override
    public void close() {
    }

    @Override
    public long[] totals() throws Exception {
        long[] totals = new long[counters];
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT id, v FROM " + table)) {
            while (rows.next()) {
                totals[rows.getInt(1)] = rows.getLong(2);
            }
        }
        return totals;
    }
}
