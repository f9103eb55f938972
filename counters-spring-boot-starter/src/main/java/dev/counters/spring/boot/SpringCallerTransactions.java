package dev.counters.spring.boot;

import dev.counters.jdbc.CallerTransactions;
import java.sql.Connection;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The Spring-managed transaction the calling thread is in, when it runs on the store's {@link DataSource} and may
 * write: what {@code DataSourceTransactionManager}, {@code JdbcTransactionManager} and {@code JpaTransactionManager}
 * (with Hibernate) bind to the thread. A read-only transaction, or one on another resource, is not joined.
 */
final class SpringCallerTransactions implements CallerTransactions {

    private final DataSource dataSource;

    SpringCallerTransactions(DataSource dataSource) {
        // A transaction manager on a transaction-aware proxy binds its transactions to the proxy's target.
        DataSource target =
                dataSource instanceof TransactionAwareDataSourceProxy proxy ? proxy.getTargetDataSource() : null;
        this.dataSource = target != null ? target : dataSource;
    }

    @Override
    public @Nullable Connection currentConnection() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()
                || TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            return null;
        }
        return TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder holder
                ? holder.getConnection()
                : null;
    }
}
