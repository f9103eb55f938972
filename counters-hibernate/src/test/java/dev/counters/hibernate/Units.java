package dev.counters.hibernate;

import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.SequenceService;
import dev.counters.spi.CounterStore;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceConfiguration;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.AvailableSettings;

/** EntityManagerFactories built the way the docs show without Spring: the service in the properties map. */
final class Units {

    static final int BATCH_SIZE = 50;

    private Units() {}

    static PersistenceConfiguration unit(TestDatabase database, DataSource dataSource, Class<?>... entities) {
        PersistenceConfiguration unit = new PersistenceConfiguration("counters-hibernate-test")
                .property(AvailableSettings.JAKARTA_NON_JTA_DATASOURCE, dataSource)
                .property(AvailableSettings.HBM2DDL_AUTO, "update")
                .property(AvailableSettings.STATEMENT_BATCH_SIZE, BATCH_SIZE)
                .property(AvailableSettings.ORDER_INSERTS, true)
                .property(AvailableSettings.GENERATE_STATISTICS, true);
        if (database == TestDatabase.MARIADB) {
            // Named, not detected: Connector/J's keyword metadata query fails on MariaDB, and detection needs it.
            unit.property(AvailableSettings.DIALECT, "org.hibernate.dialect.MariaDBDialect")
                    .property("hibernate.boot.allow_jdbc_metadata_access", false);
        }
        for (Class<?> entity : entities) {
            unit.managedClass(entity);
        }
        return unit;
    }

    static EntityManagerFactory start(TestDatabase database, DataSource dataSource, SequenceService sequences) {
        return unit(database, dataSource, Order.class, Ticket.class)
                .property(CountersSequence.SEQUENCE_SERVICE, sequences)
                .createEntityManagerFactory();
    }

    /**
     * Deletes the entity tables' rows, which outlive a test class on its database (the counters tables have a prefix
     * of their own, whose sequences start again at 1).
     */
    static void deleteRows(TestDatabase database, CounterStore store) {
        try (SequenceService sequences = SequenceService.builder(store).build();
                EntityManagerFactory factory = start(database, database.dataSource(), sequences)) {
            run(factory, entityManager -> {
                entityManager.createQuery("delete from Order").executeUpdate();
                entityManager.createQuery("delete from Ticket").executeUpdate();
            });
        }
    }

    static <T> T inTransaction(EntityManagerFactory factory, Function<EntityManager, T> work) {
        EntityManager entityManager = factory.createEntityManager();
        try {
            entityManager.getTransaction().begin();
            T result = work.apply(entityManager);
            entityManager.getTransaction().commit();
            return result;
        } finally {
            if (entityManager.getTransaction().isActive()) {
                entityManager.getTransaction().rollback();
            }
            entityManager.close();
        }
    }

    static void run(EntityManagerFactory factory, Consumer<EntityManager> work) {
        inTransaction(factory, entityManager -> {
            work.accept(entityManager);
            return null;
        });
    }

    static SessionFactory sessionFactory(EntityManagerFactory factory) {
        return factory.unwrap(SessionFactory.class);
    }
}
