package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterName;
import dev.counters.CounterService;
import dev.counters.TransientStoreException;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import io.github.resilience4j.retry.RetryRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A statement the database rolls back (here: its lock wait timed out while another transaction held the row) is
 * reported by the store as surely not applied, and retried by the strategy's one retry, through the registry the
 * application supplied; it then succeeds, applied exactly once.
 */
class RolledBackStatementRetryTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.class)
    void lockTimeoutIsRetriedAndAppliedOnce(TestDatabase database) throws Exception {
        JooqStores stores = JooqStores.on(database);
        CounterName counter = CounterName.of("locked.row");
        stores.store().add(counter, "main", 10);

        try (HikariDataSource impatient = impatientPool(database);
                Connection holder = database.dataSource().getConnection()) {
            JooqCounterStore store = JooqCounterStore.builder(impatient)
                    .tablePrefix(stores.prefix())
                    .build();
            RetryRegistry registry = RetryRegistry.ofDefaults();
            CounterService counters =
                    CounterService.builder(store).retryRegistry(registry).build();
            CountDownLatch retried = new CountDownLatch(1);
            registry.retry("counters-atomic").getEventPublisher().onRetry(event -> retried.countDown());

            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("UPDATE " + stores.prefix()
                    + "counter_cells SET cell_value = cell_value + 1 WHERE counter_name = ?")) {
                lock.setString(1, counter.value());
                assertThat(lock.executeUpdate()).isEqualTo(1);
            }
            assertThatThrownBy(() -> store.add(counter, "main", 5))
                    .as("the store itself does not retry")
                    .isInstanceOf(TransientStoreException.class);
            CompletableFuture<Void> add = CompletableFuture.runAsync(() -> counters.increment(counter.value(), 5));
            assertThat(retried.await(60, TimeUnit.SECONDS))
                    .as("a retry after the lock wait timed out")
                    .isTrue();
            holder.commit();
            add.get(60, TimeUnit.SECONDS);
            counters.close();
        }
        assertThat(stores.store().get(counter)).isEqualTo(16);
    }

    /** A pool whose sessions give up waiting for a row lock after about half a second. */
    private static HikariDataSource impatientPool(TestDatabase database) {
        String url = database.jdbcUrl();
        url = switch (database) {
            case H2 -> url.replace("LOCK_TIMEOUT=30000", "LOCK_TIMEOUT=500");
            case MARIADB -> url + "&sessionVariables=innodb_lock_wait_timeout=1";
            case POSTGRES -> url + "&options=-c%20lock_timeout=500";
        };
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(database.user());
        config.setPassword(database.password());
        config.setMaximumPoolSize(2);
        return new HikariDataSource(config);
    }
}
