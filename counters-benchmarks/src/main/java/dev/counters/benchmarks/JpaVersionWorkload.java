package dev.counters.benchmarks;

import jakarta.persistence.OptimisticLockException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.StaleStateException;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.cfg.Configuration;

/**
 * The baseline of a Spring user writing a counter by hand: find the entity, add 1, commit; a commit that finds a
 * newer {@code @Version} throws {@link OptimisticLockException} and the whole transaction is retried, up to 10
 * attempts with a short random backoff (what {@code @Retryable} on the service method does). An increment that
 * exhausts its attempts is a failure, never written.
 */
final class JpaVersionWorkload implements Workload {

    private static final int MAX_ATTEMPTS = 10;

    private final SessionFactory sessions;
    private final int counters;

    JpaVersionWorkload(DataSource dataSource, BenchDatabase database, int counters) {
        Configuration configuration = new Configuration().addAnnotatedClass(JpaCounter.class);
        configuration.getProperties().put(AvailableSettings.JAKARTA_NON_JTA_DATASOURCE, dataSource);
        configuration.setProperty(AvailableSettings.DIALECT, dialect(database));
        configuration.setProperty("hibernate.boot.allow_jdbc_metadata_access", "false");
        configuration.setProperty(AvailableSettings.HBM2DDL_AUTO, "create");
        configuration.setProperty(AvailableSettings.SHOW_SQL, "false");
        this.sessions = configuration.buildSessionFactory();
        this.counters = counters;
        sessions.inTransaction(session -> {
            for (int i = 0; i < counters; i++) {
                session.persist(new JpaCounter(i));
            }
        });
    }

    /**
     * Hibernate's dialect for {@code database}: named, not detected (with {@code allow_jdbc_metadata_access=false}),
     * because Connector/J's keyword metadata query fails on MariaDB, and detection needs it.
     */
    static String dialect(BenchDatabase database) {
        return switch (database.vendor()) {
            case H2 -> "org.hibernate.dialect.H2Dialect";
            case MARIADB -> "org.hibernate.dialect.MariaDBDialect";
            case POSTGRES -> "org.hibernate.dialect.PostgreSQLDialect";
            default -> throw new IllegalStateException(database + " is not a vendor");
        };
    }

    @Override
    public void increment(int counter) {
        for (int attempt = 1; ; attempt++) {
            try {
                sessions.inTransaction(session -> session.find(JpaCounter.class, counter).value++);
                return;
            } catch (RuntimeException e) {
                // At commit the conflict arrives wrapped (RollbackException, caused by OptimisticLockException).
                if (!isConflict(e) || attempt == MAX_ATTEMPTS) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(
                        ThreadLocalRandom.current().nextInt(100, 2_000)));
            }
        }
    }

    private static boolean isConflict(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof OptimisticLockException || cause instanceof StaleStateException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {}

    @Override
    public long[] totals() {
        long[] totals = new long[counters];
        sessions.inSession(session -> {
            for (int i = 0; i < counters; i++) {
                totals[i] = session.find(JpaCounter.class, i).value;
            }
        });
        sessions.close();
        return totals;
    }
}
