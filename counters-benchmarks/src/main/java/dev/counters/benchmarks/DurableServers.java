package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.GaleraCluster;
import dev.counters.jdbc.testing.MariaDbProcess;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The production-like servers: every commit durable, and each disk sync made to cost about a millisecond, as on a
 * server whose disk honours flushes (the machine's own disk syncs for nearly nothing, which flatters a hot row).
 *
 * <ul>
 *   <li>MariaDB: {@code innodb_flush_log_at_trx_commit=1}, binlog on with {@code sync_binlog=1} (two syncs per
 *       commit, as a replicated primary does), {@code innodb_flush_method=fsync}; a library preloaded into the server
 *       ({@code syncdelay.c}, built here with {@code cc}) sleeps {@value #SYNC_DELAY_US} µs before each
 *       {@code fsync}/{@code fdatasync}.
 *   <li>PostgreSQL: {@code fsync=on}, {@code synchronous_commit=on}, and {@code commit_delay} of
 *       {@value #SYNC_DELAY_US} µs with {@code commit_siblings=0}: a wait before each WAL flush, which concurrent
 *       commits share as they would share a slow sync.
 * </ul>
 */
final class DurableServers {

    static final int SYNC_DELAY_US = 1000;

    private static final Map<Boolean, MariaDbProcess> MARIADB = new HashMap<>();
    private static final Map<Boolean, EmbeddedPostgres> POSTGRES = new HashMap<>();

    private DurableServers() {}

    /** A pool on the production-like MariaDB server. */
    static HikariDataSource mariaDb(int size) {
        return mariaDb(size, true);
    }

    /** A pool on the production-like PostgreSQL server. */
    static HikariDataSource postgres(int size) {
        return postgres(size, true);
    }

    /**
     * {@code delayed}: each sync costs {@value #SYNC_DELAY_US} µs more; without, the same durable settings on this
     * machine's own disk, which syncs for nearly nothing: the pair shows what the emulation adds.
     */
    static synchronized HikariDataSource mariaDb(int size, boolean delayed) {
        MariaDbProcess server = MARIADB.computeIfAbsent(delayed, yes -> {
            MariaDbProcess started = MariaDbProcess.start(
                    List.of(
                            "--innodb-flush-log-at-trx-commit=1",
                            "--log-bin=binlog",
                            "--server-id=1",
                            "--sync-binlog=1",
                            "--innodb-flush-method=fsync"),
                    yes ? syncDelay() : Map.of());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    started.kill();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            return started;
        });
        // The settings docs/databases.md recommends, batches rewritten included: without it Connector/J sends a JDBC
        // batch's statements one by one, and Hibernate's batched inserts are as many round trips as IDENTITY's.
        return pool(server.jdbcUrl() + "&rewriteBatchedStatements=true", EmbeddedMariaDb.USER, "", size);
    }

    static synchronized HikariDataSource postgres(int size, boolean delayed) {
        EmbeddedPostgres server = POSTGRES.computeIfAbsent(delayed, yes -> {
            try {
                EmbeddedPostgres started = EmbeddedPostgres.builder()
                        .setServerConfig("fsync", "on")
                        .setServerConfig("synchronous_commit", "on")
                        .setServerConfig("commit_delay", yes ? Integer.toString(SYNC_DELAY_US) : "0")
                        .setServerConfig("commit_siblings", "0")
                        .setServerConfig("max_connections", "400")
                        .start();
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        started.close();
                    } catch (IOException e) {
                        // shutting down anyway
                    }
                }));
                return started;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        return pool(server.getJdbcUrl("postgres", "postgres"), "postgres", "postgres", size);
    }

    private static final Map<Integer, GaleraCluster> GALERA = new HashMap<>();
    private static final Map<Integer, Integer> NEXT_NODE = new HashMap<>();

    /**
     * A pool on the next node, in turn, of a production-like Galera cluster of {@code nodes} MariaDB 10.11 nodes
     * (Debian's packages): each commit synced ({@code innodb_flush_log_at_trx_commit=1}, no binlog: Galera's
     * replication stands in for it), each sync delayed as on the other servers. Reads wait for the cluster
     * ({@code wsrep_sync_wait=1}), so a total read after the run sees every node's writes.
     */
    static synchronized HikariDataSource galera(int nodes, int size) {
        GaleraCluster cluster = GALERA.computeIfAbsent(nodes, n -> {
            GaleraCluster started = GaleraCluster.start(
                    n, List.of("--innodb-flush-log-at-trx-commit=1", "--innodb-flush-method=fsync"), syncDelay());
            Runtime.getRuntime().addShutdownHook(new Thread(started::close));
            return started;
        });
        int node = NEXT_NODE.merge(nodes, 1, Integer::sum) % nodes;
        return pool(cluster.jdbcUrl(node) + "&sessionVariables=wsrep_sync_wait=1", EmbeddedMariaDb.USER, "", size);
    }

    private static HikariDataSource pool(String url, String user, String password, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(size);
        return new HikariDataSource(config);
    }

    private static Path syncDelayLibrary;

    /** The environment that makes a server's disk syncs take {@value #SYNC_DELAY_US} µs longer. */
    static synchronized Map<String, String> syncDelay() {
        if (syncDelayLibrary == null) {
            syncDelayLibrary = buildSyncDelayLibrary();
        }
        return Map.of("LD_PRELOAD", syncDelayLibrary.toString(), "SYNC_DELAY_US", Integer.toString(SYNC_DELAY_US));
    }

    /** Builds {@code syncdelay.c} into a shared library. */
    private static Path buildSyncDelayLibrary() {
        try {
            // Readable by all: Galera's nodes run as the mysql user.
            Path directory = Files.createTempDirectory(
                    "counters-syncdelay-",
                    java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                            java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x")));
            Path source = directory.resolve("syncdelay.c");
            try (InputStream in = DurableServers.class.getResourceAsStream("syncdelay.c")) {
                Files.copy(in, source);
            }
            Path library = directory.resolve("libsyncdelay.so");
            Process cc = new ProcessBuilder(
                            "cc", "-shared", "-fPIC", "-O2", "-o", library.toString(), source.toString(), "-ldl")
                    .inheritIO()
                    .start();
            if (!cc.waitFor(60, TimeUnit.SECONDS) || cc.exitValue() != 0) {
                throw new IllegalStateException("cc could not build " + source + "; install a C compiler (gcc)");
            }
            return library;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
