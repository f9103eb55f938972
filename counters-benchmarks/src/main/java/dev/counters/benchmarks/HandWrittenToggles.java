package dev.counters.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The baseline: what an application writes by hand for a like button. Like: {@code INSERT} the membership row, then
 * {@code UPDATE posts SET likes = likes + 1}, in one transaction; a duplicate row (already liked) rolls back and
 * changes nothing. Unlike: {@code DELETE} the row and, if there was one, {@code likes - 1}. A deadlock or
 * serialization failure is retried, up to 10 attempts with a short random backoff.
 */
final class HandWrittenToggles implements ToggleWorkload {

    private static final int MAX_ATTEMPTS = 10;
    private static final long POST = 1;

    private final DataSource dataSource;
    private final String posts;
    private final String likes;

    HandWrittenToggles(DataSource dataSource, BenchDatabase database) throws SQLException {
        this.dataSource = dataSource;
        this.posts = FreshTables.name("posts");
        this.likes = FreshTables.name("post_likes");
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + posts + " (id BIGINT PRIMARY KEY, likes BIGINT NOT NULL)");
            statement.execute("CREATE TABLE " + likes + " (post_id BIGINT NOT NULL, user_id VARCHAR(128) NOT NULL,"
                    + " PRIMARY KEY (post_id, user_id))");
            statement.execute("INSERT INTO " + posts + " (id, likes) VALUES (" + POST + ", 0)");
        }
    }

    @Override
    public boolean toggle(String user, boolean like) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(false);
                try {
                    boolean changed = like ? insert(connection, user) : delete(connection, user);
                    if (changed) {
                        try (PreparedStatement update = connection.prepareStatement(
                                "UPDATE " + posts + " SET likes = likes " + (like ? "+" : "-") + " 1 WHERE id = ?")) {
                            update.setLong(1, POST);
                            update.executeUpdate();
                        }
                    }
                    connection.commit();
                    return changed;
                } catch (SQLException e) {
                    connection.rollback();
                    if (like && isDuplicate(e)) {
                        return false;
                    }
                    if (!isConflict(e) || attempt == MAX_ATTEMPTS) {
                        throw e;
                    }
                } finally {
                    connection.setAutoCommit(true);
                }
            }
            LockSupport.parkNanos(
                    TimeUnit.MICROSECONDS.toNanos(ThreadLocalRandom.current().nextInt(100, 2_000)));
        }
    }

    private boolean insert(Connection connection, String user) throws SQLException {
        try (PreparedStatement insert =
                connection.prepareStatement("INSERT INTO " + likes + " (post_id, user_id) VALUES (?, ?)")) {
            insert.setLong(1, POST);
            insert.setString(2, user);
            return insert.executeUpdate() == 1;
        }
    }

    private boolean delete(Connection connection, String user) throws SQLException {
        try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM " + likes + " WHERE post_id = ? AND user_id = ?")) {
            delete.setLong(1, POST);
            delete.setString(2, user);
            return delete.executeUpdate() == 1;
        }
    }

    /** A unique-key violation: the row is there already. */
    private static boolean isDuplicate(SQLException e) {
        return e.getSQLState() != null && e.getSQLState().startsWith("23");
    }

    /** A deadlock (MariaDB 1213, PostgreSQL 40P01) or serialization failure (40001): worth another attempt. */
    private static boolean isConflict(SQLException e) {
        String state = e.getSQLState();
        return "40001".equals(state) || "40P01".equals(state) || e.getErrorCode() == 1213;
    }

    @Override
    public void close() {}

    @Override
    public long count() throws SQLException {
        return single("SELECT likes FROM " + posts + " WHERE id = " + POST);
    }

    @Override
    public long members() throws SQLException {
        return single("SELECT COUNT(*) FROM " + likes + " WHERE post_id = " + POST);
    }

    private long single(String query) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(query)) {
            row.next();
            return row.getLong(1);
        }
    }
}
