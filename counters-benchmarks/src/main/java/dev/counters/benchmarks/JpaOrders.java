package dev.counters.benchmarks;

import dev.counters.benchmarks.jpa.JpaApplication;
import dev.counters.benchmarks.jpa.Order;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.sql.DataSource;
import org.hibernate.Session;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One point's Spring Data JPA application on fresh tables, with the entity of one {@link IdGenerator}: inserts of
 * {@value #PER_TRANSACTION} orders per transaction through the repository's {@code saveAll}, JDBC-batched, and ids
 * alone, drawn from the generator Hibernate calls at {@code persist}.
 */
final class JpaOrders implements AutoCloseable {

    /** Orders per transaction, and Hibernate's JDBC batch size: an order and its lines, say. */
    static final int PER_TRANSACTION = 10;

    private final IdGenerator generator;
    private final AutoCloseable ownTables;
    private final AnnotationConfigApplicationContext application;
    private final JpaRepository<Order, Long> repository;
    private final TransactionTemplate transactions;
    private final SessionFactoryImplementor sessions;
    private final BeforeExecutionGenerator ids;
    private final Queue<Session> idSessions = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<SharedSessionContractImplementor> idSession;

    @SuppressWarnings("unchecked")
    JpaOrders(IdGenerator generator, DataSource dataSource, BenchDatabase database) throws Exception {
        this.generator = generator;
        IdGenerator.Own own = generator.own().open(dataSource);
        this.ownTables = own.closer();
        Map<String, Object> hibernate = new HashMap<>(own.hibernate());
        hibernate.put("hibernate.dialect", JpaVersionWorkload.dialect(database));
        hibernate.put("hibernate.boot.allow_jdbc_metadata_access", "false");
        // Hibernate's tables, dropped and created: each point starts from empty ones.
        hibernate.put("hibernate.hbm2ddl.auto", "create");
        hibernate.put("hibernate.jdbc.batch_size", Integer.toString(PER_TRANSACTION));
        hibernate.put("hibernate.order_inserts", "true");
        this.application = JpaApplication.start(new JpaApplication.Settings(dataSource, hibernate));
        this.repository = (JpaRepository<Order, Long>) application.getBean(generator.repository());
        this.transactions = application.getBean(TransactionTemplate.class);
        this.sessions = application
                .getBean(jakarta.persistence.EntityManagerFactory.class)
                .unwrap(SessionFactoryImplementor.class);
        this.ids = generator.fromInsert()
                ? null
                : (BeforeExecutionGenerator) sessions.getMappingMetamodel()
                        .getEntityDescriptor(generator.entity())
                        .getGenerator();
        this.idSession = ThreadLocal.withInitial(() -> {
            Session session = sessions.openSession();
            idSessions.add(session);
            return (SharedSessionContractImplementor) session;
        });
    }

    /**
     * Inserts {@value #PER_TRANSACTION} orders in one transaction, committed on return.
     *
     * @return the nanoseconds spent in {@code saveAll}, before the commit: for generators apart from the insert, the
     *     time spent getting the ids (the inserts are sent at the commit's flush)
     */
    long insert(String customer) {
        List<Order> orders = new ArrayList<>(PER_TRANSACTION);
        for (int i = 0; i < PER_TRANSACTION; i++) {
            orders.add(generator.newOrder().apply(customer, (long) i));
        }
        long[] persisting = new long[1];
        transactions.executeWithoutResult(status -> {
            long started = System.nanoTime();
            repository.saveAll(orders);
            persisting[0] = System.nanoTime() - started;
        });
        return persisting[0];
    }

    /** One id, from the generator Hibernate calls at {@code persist}, on a session of the calling thread's own. */
    long nextId() {
        SharedSessionContractImplementor session = idSession.get();
        return ((Number) ids.generate(session, generator.newOrder().apply("ids", 0L), null, EventType.INSERT))
                .longValue();
    }

    /** The orders stored. */
    long count() {
        return repository.count();
    }

    @Override
    public void close() throws Exception {
        idSessions.forEach(Session::close);
        application.close();
        ownTables.close();
    }
}
