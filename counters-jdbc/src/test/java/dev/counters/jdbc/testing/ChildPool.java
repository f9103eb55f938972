package dev.counters.jdbc.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/** In a child JVM: a connection pool from the first three arguments the parent passed (URL, user, password). */
public final class ChildPool {

    private ChildPool() {}

    public static HikariDataSource of(String[] args, int maxConnections) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setUsername(args[1]);
        config.setPassword(args[2]);
        config.setMaximumPoolSize(maxConnections);
        return new HikariDataSource(config);
    }
}
