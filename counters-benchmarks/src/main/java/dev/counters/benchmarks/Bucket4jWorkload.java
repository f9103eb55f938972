package dev.counters.benchmarks;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.jdbc.PrimaryKeyMapper;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.mysql.Bucket4jMySQL;
import io.github.bucket4j.postgresql.Bucket4jPostgreSQL;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

/**
 * Bucket4j's JDBC rate limiter as its documentation sets it up: a select-for-update {@code ProxyManager} (a
 * transaction per decision: the row locked by {@code SELECT … FOR UPDATE}, the bucket computed in Java, written back
 * by {@code UPDATE}, committed; an {@code INSERT} first for a new key) on a table of string keys, a bucket of
 * {@code capacity(permits).refillGreedy(permits, period)} per key, rows expiring once their bucket would be full.
 * On MariaDB: the {@code -mysql} module, on Connector/J, as this library's. A request times out after
 * {@link #TIMEOUT} (a statement timeout): a new key's {@code INSERT IGNORE} can wait on InnoDB's gap locks for
 * {@code innodb_lock_wait_timeout} (50 s) under concurrent first uses; it then fails, as an error, rather than stall
 * the run.
 */
final class Bucket4jWorkload implements RateLimitWorkload {

    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final ProxyManager<String> buckets;
    private final BucketConfiguration configuration;
    private final Map<String, BucketProxy> proxies = new ConcurrentHashMap<>();

    private Bucket4jWorkload(DataSource dataSource, BenchDatabase database, Limit limit, String table, boolean create)
            throws Exception {
        boolean mariaDb = database.vendor() == BenchDatabase.MARIADB;
        if (create) {
            try (Connection connection = dataSource.getConnection();
                    Statement ddl = connection.createStatement()) {
                // Bucket4j's documented DDL, with string keys.
                ddl.execute("CREATE TABLE " + table + " (id VARCHAR(64) PRIMARY KEY, state "
                        + (mariaDb ? "BLOB" : "BYTEA") + ", expires_at BIGINT)");
            }
        }
        ExpirationAfterWriteStrategy expiry =
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10));
        this.buckets = mariaDb
                ? Bucket4jMySQL.selectForUpdateBasedBuilder(dataSource)
                        .primaryKeyMapper(PrimaryKeyMapper.STRING)
                        .table(table)
                        .expirationAfterWrite(expiry)
                        .requestTimeout(TIMEOUT)
                        .build()
                : Bucket4jPostgreSQL.selectForUpdateBasedBuilder(dataSource)
                        .primaryKeyMapper(PrimaryKeyMapper.STRING)
                        .table(table)
                        .expirationAfterWrite(expiry)
                        .requestTimeout(TIMEOUT)
                        .build();
        this.configuration = BucketConfiguration.builder()
                .addLimit(
                        bandwidth -> bandwidth.capacity(limit.permits()).refillGreedy(limit.permits(), limit.period()))
                .build();
    }

    static Opener opener() {
        return Bucket4jWorkload::new;
    }

    @Override
    public boolean tryAcquire(String key) {
        return proxies.computeIfAbsent(key, k -> buckets.builder().build(k, () -> configuration))
                .tryConsume(1);
    }

    @Override
    public void close() {}
}
