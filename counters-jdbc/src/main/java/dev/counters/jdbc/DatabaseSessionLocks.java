package dev.counters.jdbc;

import dev.counters.spi.SessionLocks;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.jooq.ConnectionProvider;
import org.jooq.DSLContext;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SessionLocks} on MySQL and MariaDB ({@code GET_LOCK}, named server-wide) and PostgreSQL (session advisory
 * locks, numbered per database). Each lock keeps one connection of the pool for itself, since the lock lives as long
 * as its session. Lock names are hashed from the database, the table prefix and the key, so that two applications
 * with tables of their own never share a lock.
 *
 * <p>Not behind a pooler that shares server sessions between its clients (PgBouncer in transaction or statement mode,
 * detected by {@link Databases#sharesServerSessions}): there the lock would stay with a server connection that the
 * pooler then hands to other clients, one of which takes the same lock again at once (advisory locks are re-entrant
 * within a session), while its own session could not release it.
 *
 * <p>Not on a Galera cluster ({@code wsrep_on}): there {@code GET_LOCK} is held by one node only, and a process on
 * another node takes the same lock at once, so a lock would exclude nothing. Without session locks, the strategies
 * fall back to leases, rows that Galera replicates and certifies like any other write.
 */
final class DatabaseSessionLocks implements SessionLocks {

    private static final Logger LOG = LoggerFactory.getLogger(DatabaseSessionLocks.class);

    private final ConnectionProvider connections;
    private final SQLDialect dialect;
    private final String tablePrefix;

    /** The connections held by locks now. */
    private final AtomicInteger held = new AtomicInteger();

    /** The pool's maximum size, 0 when unknown, and what to call it. */
    private final int poolSize;

    private final String pool;

    DatabaseSessionLocks(
            ConnectionProvider connections, SQLDialect dialect, String tablePrefix, int poolSize, String pool) {
        this.connections = connections;
        this.dialect = dialect;
        this.tablePrefix = tablePrefix;
        this.poolSize = poolSize;
        this.pool = pool;
    }

    /**
     * {@code sessionLocks} on the database {@code dsl} talks to, if its locks exclude across every server that takes
     * writes and every client of a pooler. Asked of the database on first use (a store may be built while its database is down), and
     * remembered once answered.
     */
    static Supplier<Optional<SessionLocks>> of(DSLContext dsl, DatabaseSessionLocks sessionLocks) {
        SQLDialect family = dsl.dialect().family();
        Optional<SessionLocks> locks = Optional.of(sessionLocks);
        return switch (family) {
            // A pool of one connection cannot hold a lock and write: tryLock says so, rather than the probe waiting.
            case POSTGRES ->
                sessionLocks.poolSize == 1
                        ? () -> locks
                        : unless(locks, "detect a pooler sharing server sessions (PgBouncer)", () -> {
                            boolean pooled = Databases.sharesServerSessions(
                                    dsl.configuration().connectionProvider());
                            if (pooled) {
                                LOG.warn("The connections share PostgreSQL server sessions between them (PgBouncer in "
                                        + "transaction or statement pooling mode): a session advisory lock would stay with a "
                                        + "server connection that then serves other clients, so claims use leases. Give "
                                        + "counters a direct connection (counters.datasource.*) to have session locks");
                            }
                            return pooled;
                        });
            case MYSQL, MARIADB ->
                unless(locks, "detect a Galera cluster", () -> {
                    boolean galera = dsl.connectionResult(Databases::isGaleraNode);
                    if (galera) {
                        LOG.info("Galera cluster (wsrep_on=ON): GET_LOCK is node-local, so claims use leases");
                    }
                    return galera;
                });
            default -> Optional::empty;
        };
    }

    /**
     * {@code locks}, unless the database says (asked on first use, the answer then remembered) that they would not
     * exclude.
     */
    private static Supplier<Optional<SessionLocks>> unless(
            Optional<SessionLocks> locks, String probe, Supplier<Boolean> wouldNotExclude) {
        return new Supplier<>() {
            @SuppressWarnings("NullableOptional") // null: not asked yet; empty: asked, and the probe excludes locks
            private volatile @Nullable Optional<SessionLocks> answer;

            @Override
            public Optional<SessionLocks> get() {
                Optional<SessionLocks> known = answer;
                if (known == null) {
                    boolean useless;
                    try {
                        useless = wouldNotExclude.get();
                    } catch (RuntimeException e) {
                        throw SqlFailures.translate(e, probe);
                    }
                    known = useless ? Optional.empty() : locks;
                    answer = known;
                }
                return known;
            }
        };
    }

    @Override
    public Optional<SessionLock> tryLock(String key) {
        String operation = "tryLock '" + key + "'";
        int locks = held.get() + 1;
        if (poolSize > 0 && locks >= poolSize) {
            throw new IllegalStateException("Taking the session lock for '" + key + "' would leave the connection pool "
                    + pool + " no connection for the writes: it has at most " + poolSize + ", and each session lock "
                    + "(a node rule's claim on its node id) keeps one for itself as long as it is held (" + locks
                    + " then). Raise the pool's maximum size to at least " + (locks + 1) + " plus the connections the "
                    + "application and counters' writes use at once (README, 'Connection pool sizing'), or give "
                    + "counters a pool of their own");
        }
        Connection connection;
        try {
            connection = Databases.acquire(connections);
        } catch (RuntimeException e) {
            throw SqlFailures.translate(e, operation);
        }
        try {
            // A pool may hand out connections outside autocommit; a lock session left in an open transaction would
            // hold it for as long as the lock (on PostgreSQL, keeping VACUUM from cleaning up behind it).
            connection.setAutoCommit(true);
            DSLContext session = DSL.using(connection, dialect);
            String catalog = connection.getCatalog();
            boolean taken = dialect == SQLDialect.POSTGRES
                    ? Boolean.TRUE.equals(session.fetchValue(DSL.field(
                            "pg_try_advisory_lock({0})",
                            Boolean.class, DSL.val(postgresLockKey(catalog, tablePrefix, key)))))
                    : Integer.valueOf(1)
                            .equals(session.fetchValue(DSL.field(
                                    "get_lock({0}, 0)",
                                    Integer.class, DSL.val(mysqlLockName(catalog, tablePrefix, key)))));
            if (taken) {
                held.incrementAndGet();
                return Optional.of(new Held(connection));
            }
            connections.release(connection);
            return Optional.empty();
        } catch (RuntimeException | SQLException e) {
            release(connection);
            throw SqlFailures.translate(
                    e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e.getMessage(), e),
                    operation);
        }
    }

    /** Gives the connection back only once it holds no lock: a pooled session that kept one would keep it forever. */
    private void release(Connection connection) {
        try {
            DSL.using(connection, dialect)
                    .execute(
                            dialect == SQLDialect.POSTGRES
                                    ? "select pg_advisory_unlock_all()"
                                    : "select release_all_locks()");
        } catch (RuntimeException e) {
            abort(connection); // most likely the session is gone, and its locks with it; make sure
        }
        connections.release(connection);
    }

    private static void abort(Connection connection) {
        try {
            connection.abort(Runnable::run);
        } catch (SQLException | RuntimeException ignored) {
            // closing is all that is left, and release() does it
        }
    }

    /** How many connections the locks held now keep for themselves, one each. */
    int held() {
        return held.get();
    }

    /** A {@code GET_LOCK} name: names are server-wide and at most 64 characters, so the database goes in the hash. */
    static String mysqlLockName(String catalog, String tablePrefix, String key) {
        return "counters:" + HexFormat.of().formatHex(sha256(catalog + "/" + tablePrefix + key), 0, 20);
    }

    /** An advisory lock number: locks are per database, numbered by 64-bit keys. */
    static long postgresLockKey(String catalog, String tablePrefix, String key) {
        return ByteBuffer.wrap(sha256(catalog + "/" + tablePrefix + key)).getLong();
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Every Java platform has SHA-256", e);
        }
    }

    private final class Held implements SessionLock {

        private @Nullable Connection connection;

        Held(Connection connection) {
            this.connection = connection;
        }

        @Override
        public synchronized boolean isHeld() {
            try {
                return connection != null && connection.isValid(5);
            } catch (SQLException e) {
                return false;
            }
        }

        @Override
        public synchronized void close() {
            if (connection != null) {
                held.decrementAndGet();
                release(connection);
                connection = null;
            }
        }
    }
}
