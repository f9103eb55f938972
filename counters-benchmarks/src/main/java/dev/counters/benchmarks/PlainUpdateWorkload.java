package dev.counters.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** The baseline: one row per counter, {@code UPDATE … SET v = v + 1} per increment, one commit each. */
class PlainUpdateWorkload implements Workload {

    private final DataSource dataSource;
    private final String table;
    private final int counters;
    /** Each caller's pool: the one pool, or one of several application instances' in turn. */
    private final ThreadLocal<DataSource> callerPool;

    PlainUpdateWorkload(DataSource dataSource, int counters) throws Exception {
        this(List.of(dataSource), counters);
    }

    /** {@code instances} application instances, each with its own pool from {@code setup}; callers shared out evenly. */
    static PlainUpdateWorkload instances(Workload.Setup setup, int instances) throws Exception {
        List<DataSource> pools = new ArrayList<>(List.of(setup.dataSource()));
        for (int i = 1; i < instances; i++) {
            pools.add(setup.pools().apply(Math.ceilDiv(setup.connections(), instances) + 2));
        }
        return new PlainUpdateWorkload(pools, setup.counters());
    }

    private PlainUpdateWorkload(List<DataSource> pools, int counters) throws Exception {
        DataSource dataSource = pools.getFirst();
        AtomicInteger nextCaller = new AtomicInteger();
        this.callerPool = ThreadLocal.withInitial(() -> pools.get(nextCaller.getAndIncrement() % pools.size()));
        this.dataSource = dataSource;
        this.table = FreshTables.name("plain_");
        this.counters = counters;
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY, v BIGINT NOT NULL)");
            for (int i = 0; i < counters; i++) {
                statement.execute("INSERT INTO " + table + " (id, v) VALUES (" + i + ", 0)");
            }
        }
    }

    @Override
    public void increment(int counter) throws Exception {
        try (Connection connection = callerPool.get().getConnection();
                PreparedStatement update =
                        connection.prepareStatement("UPDATE " + table + " SET v = v + 1 WHERE id = ?")) {
            update.setInt(1, counter);
            update.executeUpdate();
        }
    }

    @Override
    public void close() {}

    @Override
    public long[] totals() throws Exception {
        long[] totals = new long[counters];
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT id, v FROM " + table)) {
            while (rows.next()) {
                totals[rows.getInt(1)] = rows.getLong(2);
            }
        }
        return totals;
    }
}
