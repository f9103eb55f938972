package dev.counters.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import javax.sql.DataSource;

/**
 * The statements a database strategy sends, written by hand in plain JDBC on the library's own tables: what the
 * library's per-call overhead is measured against. One statement per increment in autocommit, as the strategies send
 * them outside a caller's transaction.
 * <ul>
 *   <li>{@link Statements#UPDATE}: what {@code atomic} and {@code node} send for a cell that exists, an update of its
 *       row by the delta (the library upserts only a cell's first write);
 *   <li>{@link Statements#SHARDED_UPDATE}: the same update, of one of 16 shard rows picked at random, as
 *       {@code sharded} sends it;
 *   <li>{@link Statements#INSERT}: {@code delta-log}'s append of one delta row;
 *   <li>{@link Statements#COMPARE_AND_SET}: {@code optimistic}'s versioned update, with a read first only when the
 *       cell is no longer as the last update left it.
 * </ul>
 */
final class RawJdbcWorkload implements Workload {

    enum Statements {
        UPDATE,
        SHARDED_UPDATE,
        INSERT,
        COMPARE_AND_SET;

        /** The cells of one counter this statement writes. */
        int cells() {
            return this == SHARDED_UPDATE ? SHARDS : 1;
        }
    }

    /** As many as the {@code sharded} workload's default. */
    private static final int SHARDS = 16;

    private final DataSource dataSource;
    private final Statements statements;
    private final int counters;
    private final String cells;
    private final String deltas;
    private final String write;
    private final String idPrefix = UUID.randomUUID().toString().substring(0, 8) + ".";
    private final AtomicLong ids = new AtomicLong();
    /** Per counter, its value and version as the last compare-and-set left them, if no other thread came since. */
    private final AtomicReferenceArray<long[]> written;

    private RawJdbcWorkload(Workload.Setup setup, Statements statements) {
        String prefix = FreshTables.name("r") + "_";
        FreshTables.store(setup.dataSource(), prefix); // the library's tables, migrated
        this.dataSource = setup.dataSource();
        this.statements = statements;
        this.counters = setup.counters();
        this.written = new AtomicReferenceArray<>(counters);
        this.cells = prefix + "counter_cells";
        this.deltas = prefix + "counter_deltas";
        this.write = switch (statements) {
            case UPDATE, SHARDED_UPDATE ->
                "UPDATE " + cells + " SET cell_value = cell_value + ?, version = version + 1"
                        + " WHERE counter_name = ? AND cell = ?";
            case INSERT ->
                "INSERT INTO " + deltas + " (counter_name, delta_id, delta, appended_at, folded)"
                        + " VALUES (?, ?, ?, ?, 0)";
            case COMPARE_AND_SET ->
                "UPDATE " + cells + " SET cell_value = ?, version = version + 1"
                        + " WHERE counter_name = ? AND cell = ? AND version = ? AND cell_value = ?";
        };
        if (statements != Statements.INSERT) {
            for (int i = 0; i < counters; i++) {
                for (int cell = 0; cell < statements.cells(); cell++) {
                    insertCell(i, cell(cell));
                }
            }
        }
    }

    static Opener opener(Statements statements) {
        return setup -> new RawJdbcWorkload(setup, statements);
    }

    private static String name(int counter) {
        return "bench.c" + counter;
    }

    /** The library's cell names: {@code v} for one cell, {@code s0}… for shards. */
    private String cell(int index) {
        return statements == Statements.SHARDED_UPDATE ? "s" + index : "v";
    }

    private String pickCell() {
        return cell(statements.cells() == 1 ? 0 : ThreadLocalRandom.current().nextInt(statements.cells()));
    }

    private void insertCell(int counter, String cell) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement insert = connection.prepareStatement(
                        "INSERT INTO " + cells + " (counter_name, cell, cell_value, version) VALUES (?, ?, 0, 0)")) {
            insert.setString(1, name(counter));
            insert.setString(2, cell);
            insert.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void increment(int counter) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            if (statements == Statements.COMPARE_AND_SET) {
                compareAndSet(connection, counter);
                return;
            }
            try (PreparedStatement statement = connection.prepareStatement(write)) {
                if (statements == Statements.INSERT) {
                    statement.setString(1, name(counter));
                    statement.setString(2, idPrefix + ids.incrementAndGet());
                    statement.setLong(3, 1);
                    statement.setLong(4, System.currentTimeMillis());
                } else {
                    statement.setLong(1, 1);
                    statement.setString(2, name(counter));
                    statement.setString(3, pickCell());
                }
                statement.executeUpdate();
            }
        }
    }

    /**
     * Write value + 1 if value and version are still as this workload's last write left them; otherwise read them and
     * try again, as the strategy does.
     */
    private void compareAndSet(Connection connection, int counter) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement(write)) {
            long[] known = written.getAndSet(counter, null);
            while (known == null || !compareAndSet(update, counter, known)) {
                known = read(connection, counter);
            }
        }
    }

    private boolean compareAndSet(PreparedStatement update, int counter, long[] known) throws SQLException {
        update.setLong(1, known[0] + 1);
        update.setString(2, name(counter));
        update.setString(3, "v");
        update.setLong(4, known[1]);
        update.setLong(5, known[0]);
        if (update.executeUpdate() != 1) {
            return false;
        }
        written.set(counter, new long[] {known[0] + 1, known[1] + 1});
        return true;
    }

    private long[] read(Connection connection, int counter) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(
                "SELECT cell_value, version FROM " + cells + " WHERE counter_name = ? AND cell = ?")) {
            read.setString(1, name(counter));
            read.setString(2, "v");
            try (ResultSet row = read.executeQuery()) {
                row.next();
                return new long[] {row.getLong(1), row.getLong(2)};
            }
        }
    }

    @Override
    public void close() {}

    @Override
    public long[] totals() throws SQLException {
        long[] totals = new long[counters];
        String sum = statements == Statements.INSERT
                ? "SELECT SUM(delta) FROM " + deltas + " WHERE counter_name = ?"
                : "SELECT SUM(cell_value) FROM " + cells + " WHERE counter_name = ?";
        try (Connection connection = dataSource.getConnection();
                PreparedStatement read = connection.prepareStatement(sum)) {
            for (int i = 0; i < counters; i++) {
                read.setString(1, name(i));
                try (ResultSet row = read.executeQuery()) {
                    row.next();
                    totals[i] = row.getLong(1);
                }
            }
        }
        return totals;
    }
}
