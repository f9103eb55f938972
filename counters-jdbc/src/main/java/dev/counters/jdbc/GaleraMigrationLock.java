package dev.counters.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;

/**
 * A cluster-wide lock around the library's migrations on a Galera cluster. Flyway's own lock (a {@code GET_LOCK}, or
 * {@code SELECT ... FOR UPDATE} on its history table) holds on one node only, so two instances starting at once
 * through two nodes would both migrate, and one would fail half-way, leaving a failed migration behind. Galera runs
 * DDL in one total order on every node, so of several {@code CREATE TABLE}s of the lock table exactly one succeeds,
 * cluster-wide; the others wait for it to be dropped. A lock left by an instance killed while it migrated is not taken
 * over (no instance can tell it from a slow migration): the wait ends with a message that says how to drop it.
 */
final class GaleraMigrationLock implements AutoCloseable {

    /** The longest an instance waits for another's migration before it fails: far more than the migrations take. */
    static final Duration WAIT = Duration.ofMinutes(2);

    private static final int TABLE_EXISTS = 1050;
    private static final long POLL_MILLIS = 100;

    private final DataSource dataSource;
    private final String table;

    private GaleraMigrationLock(DataSource dataSource, String table) {
        this.dataSource = dataSource;
        this.table = table;
    }

    /** The lock on {@code dataSource}'s database when it is a Galera node, else null (Flyway's lock suffices). */
    static @Nullable GaleraMigrationLock acquireOnGalera(DataSource dataSource, String prefix, Duration wait)
            throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            if (!Databases.isGaleraNode(connection)) {
                return null;
            }
        }
        String table = prefix + "counters_migration_lock";
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            try (Connection connection = dataSource.getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("create table " + table + " (held_since timestamp not null)");
                return new GaleraMigrationLock(dataSource, table);
            } catch (SQLException e) {
                if (e.getErrorCode() != TABLE_EXISTS) {
                    throw e;
                }
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Another instance has been applying the counters' migrations on this"
                        + " Galera cluster for " + ageOf(dataSource, table) + " (their lock, the table " + table
                        + ", still exists after " + wait.toSeconds() + " s). If no instance is migrating any more (one"
                        + " was killed while it migrated), check the schema history table "
                        + SchemaMigrations.historyTable(prefix) + ", then drop the lock: drop table " + table);
            }
            sleep();
        }
    }

    @Override
    public void close() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("drop table if exists " + table);
        }
    }

    private static String ageOf(DataSource dataSource, String table) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(
                        "select timestampdiff(second, create_time, now()) from information_schema.tables"
                                + " where table_schema = database() and table_name = ?")) {
            statement.setString(1, table);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() ? rows.getLong(1) + " s" : "an unknown time";
            }
        }
    }

    private static void sleep() {
        try {
            TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for another instance's migrations", e);
        }
    }
}
