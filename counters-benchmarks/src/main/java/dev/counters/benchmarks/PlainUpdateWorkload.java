package dev.counters.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** The baseline: one row per counter, {@code UPDATE … SET v = v + 1} per increment, one commit each. */
class PlainUpdateWorkload implements Workload {

    /**
     * The rows a baseline updates: their value at the start, the update of one change (acknowledged iff it updated
     * the row), and how a change moves the value (+1 or -1), so that the total is what the changes stored.
     */
    record Rows(long initial, String update, int step) {}

    private static final Rows PLAIN = new Rows(0, "SET v = v + 1 WHERE id = ?", 1);

    private final DataSource dataSource;
    private final String table;
    private final int counters;
    private final Rows rows;
    private final String update;
    /** Each caller's pool: the one pool, or one of several application instances' in turn. */
    private final ThreadLocal<DataSource> callerPool;

    PlainUpdateWorkload(DataSource dataSource, int counters) throws Exception {
        this(List.of(dataSource), counters, PLAIN);
    }

    /** {@code instances} application instances, each with its own pool from {@code setup}; callers shared out evenly. */
    static PlainUpdateWorkload instances(Workload.Setup setup, int instances) throws Exception {
        return new PlainUpdateWorkload(setup.instancePools(instances), setup.counters(), PLAIN);
    }

    PlainUpdateWorkload(List<DataSource> pools, int counters, Rows rows) throws Exception {
        DataSource dataSource = pools.getFirst();
        AtomicInteger nextCaller = new AtomicInteger();
        this.callerPool = ThreadLocal.withInitial(() -> pools.get(nextCaller.getAndIncrement() % pools.size()));
        this.dataSource = dataSource;
        this.table = FreshTables.name("plain_");
        this.counters = counters;
        this.rows = rows;
        this.update = "UPDATE " + table + " " + rows.update();
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, v BIGINT NOT NULL)");
            for (int i = 0; i < counters; i++) {
                statement.execute("INSERT INTO " + table + " (id, v) VALUES (" + i + ", " + rows.initial() + ")");
            }
        }
    }

    @Override
    public void increment(int counter) throws Exception {
        try (Connection connection = callerPool.get().getConnection();
                PreparedStatement statement = connection.prepareStatement(update)) {
            statement.setInt(1, counter);
            if (statement.executeUpdate() != 1) {
                throw new Refused();
            }
        }
    }

    /** The value of one row now. */
    public long value(int counter) throws Exception {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement("SELECT v FROM " + table + " WHERE id = ?")) {
            select.setInt(1, counter);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    @Override
    public void close() {}

    @Override
    public long[] totals() throws Exception {
        long[] totals = new long[counters];
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet values = statement.executeQuery("SELECT id, v FROM " + table)) {
            while (values.next()) {
                totals[values.getInt(1)] = (values.getLong(2) - rows.initial()) * rows.step();
            }
        }
        return totals;
    }
}
