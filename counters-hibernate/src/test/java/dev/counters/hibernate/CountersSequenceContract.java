package dev.counters.hibernate;

import static dev.counters.hibernate.Units.inTransaction;
import static dev.counters.hibernate.Units.run;
import static dev.counters.hibernate.Units.sessionFactory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import jakarta.persistence.EntityManagerFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@link CountersSequence} ids through plain Hibernate (no Spring: the service in the properties map), on a real
 * database: unique across threads, instances and restarts, batched inserts, gaps after rollbacks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CountersSequenceContract {

    /** Small blocks, so that the threads below cross many block boundaries. */
    private static final SequenceSettings SMALL_BLOCKS =
            SequenceSettings.defaults().withBlockSize(16).withMaxBlockSize(16);

    private final TestDatabase database;
    private JooqStores stores;

    CountersSequenceContract(TestDatabase database) {
        this.database = database;
    }

    @BeforeAll
    void migrate() {
        stores = JooqStores.on(database);
        Units.deleteRows(database, stores.store());
    }

    private static SequenceService service(JooqCounterStore store) {
        return SequenceService.builder(store).defaultSettings(SMALL_BLOCKS).build();
    }

    private static String marker() {
        return UUID.randomUUID().toString();
    }

    @Test
    void idsAreUniqueAndIncreasingForEachThread() throws Exception {
        try (SequenceService sequences = service(stores.store());
                EntityManagerFactory factory = Units.start(database, database.dataSource(), sequences)) {
            String note = marker();
            List<List<Long>> perThread = persistConcurrently(factory, 8, 20, 10, note);

            Set<Long> all = new HashSet<>();
            for (List<Long> ids : perThread) {
                assertThat(ids).hasSize(200).isSorted().doesNotHaveDuplicates();
                all.addAll(ids);
            }
            assertThat(all).hasSize(8 * 200);
            assertThat(stored(factory, note)).containsExactlyInAnyOrderElementsOf(all);
        }
    }

    @Test
    void twoInstancesOnOneDatabaseNeverShareAnId() throws Exception {
        try (SequenceService first = service(stores.store());
                SequenceService second = service(stores.anotherStore());
                HikariDataSource otherPool = database.newDataSource(8);
                EntityManagerFactory one = Units.start(database, database.dataSource(), first);
                EntityManagerFactory other = Units.start(database, otherPool, second)) {
            String note = marker();
            ExecutorService both = Executors.newFixedThreadPool(2);
            try {
                Future<List<List<Long>>> fromOne = both.submit(() -> persistConcurrently(one, 4, 20, 10, note));
                Future<List<List<Long>>> fromOther = both.submit(() -> persistConcurrently(other, 4, 20, 10, note));
                Set<Long> all = new HashSet<>();
                int count = 0;
                for (List<Long> ids : concat(fromOne.get(2, TimeUnit.MINUTES), fromOther.get(2, TimeUnit.MINUTES))) {
                    all.addAll(ids);
                    count += ids.size();
                }
                assertThat(count).isEqualTo(2 * 4 * 200);
                assertThat(all).hasSize(count);
                assertThat(stored(one, note)).containsExactlyInAnyOrderElementsOf(all);
            } finally {
                both.shutdownNow();
            }
        }
    }

    @Test
    void aRestartContinuesAboveTheOldIds() {
        String note = marker();
        long before;
        try (SequenceService sequences = service(stores.store());
                EntityManagerFactory factory = Units.start(database, database.dataSource(), sequences)) {
            before = persist(factory, 5, note).get(4);
        }
        try (SequenceService sequences = service(stores.anotherStore());
                EntityManagerFactory factory = Units.start(database, database.dataSource(), sequences)) {
            List<Long> after = persist(factory, 5, note);
            assertThat(after.get(0)).isGreaterThan(before);
            assertThat(stored(factory, note)).hasSize(10);
        }
    }

    @Test
    void insertsGoInJdbcBatches() {
        CountingDataSource jdbc = new CountingDataSource(database.dataSource());
        try (SequenceService sequences = service(stores.store());
                EntityManagerFactory factory = Units.start(database, jdbc.dataSource, sequences)) {
            Statistics statistics = sessionFactory(factory).getStatistics();
            statistics.clear();
            jdbc.reset();
            int rows = 4 * Units.BATCH_SIZE;
            persist(factory, rows, marker());

            assertThat(statistics.getEntityInsertCount()).isEqualTo(rows);
            // Every insert went in a JDBC batch of BATCH_SIZE (the sequence's own statements run on the store's
            // connections, not Hibernate's).
            assertThat(jdbc.batchedRows).hasValue(rows);
            assertThat(jdbc.batches).hasValue(rows / Units.BATCH_SIZE);
            assertThat(jdbc.singleUpdates).hasValue(0);
        }
    }

    @Test
    void aRolledBackInsertLeavesAGapAndTheNextIdIsFresh() {
        try (SequenceService sequences = service(stores.store());
                EntityManagerFactory factory = Units.start(database, database.dataSource(), sequences)) {
            String note = marker();
            var entityManager = factory.createEntityManager();
            entityManager.getTransaction().begin();
            Order rolledBack = new Order(note);
            entityManager.persist(rolledBack);
            entityManager.flush();
            entityManager.getTransaction().rollback();
            entityManager.close();

            long next = persist(factory, 1, note).get(0);
            assertThat(next).isGreaterThan(rolledBack.getId());
            assertThat(stored(factory, note)).containsExactly(next);
        }
    }

    @Test
    void intIdsOnAGetter() {
        try (SequenceService sequences = service(stores.store());
                EntityManagerFactory factory = Units.start(database, database.dataSource(), sequences)) {
            List<Integer> ids = inTransaction(factory, entityManager -> {
                List<Integer> taken = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    Ticket ticket = new Ticket();
                    entityManager.persist(ticket);
                    taken.add(ticket.getId());
                }
                return taken;
            });
            assertThat(ids).isSorted().doesNotHaveDuplicates().allMatch(id -> id > 0);
        }
    }

    @Test
    void anIntIdBeyondIntegersIsRefused() {
        // A store of its own: the sequence starts just below the end of int.
        try (SequenceService sequences = SequenceService.builder(
                                JooqStores.on(database).store())
                        .sequence("hib-tickets", SMALL_BLOCKS.withStart(Integer.MAX_VALUE))
                        .build();
                EntityManagerFactory factory = Units.start(database, database.dataSource(), sequences)) {
            run(factory, entityManager -> {
                Ticket last = new Ticket();
                entityManager.persist(last);
                assertThat(last.getId()).isEqualTo(Integer.MAX_VALUE);
                assertThatThrownBy(() -> entityManager.persist(new Ticket()))
                        .hasStackTraceContaining("Sequence 'hib-tickets' handed out 2147483648, which does not fit"
                                + " the Integer id dev.counters.hibernate.Ticket.id");
                entityManager.getTransaction().setRollbackOnly();
            });
        }
    }

    /** Each thread persists {@code transactions} × {@code perTransaction} orders; its ids, in the order it got them. */
    private static List<List<Long>> persistConcurrently(
            EntityManagerFactory factory, int threads, int transactions, int perTransaction, String note)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Long>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    List<Long> ids = new ArrayList<>();
                    for (int i = 0; i < transactions; i++) {
                        ids.addAll(persist(factory, perTransaction, note));
                    }
                    return ids;
                }));
            }
            List<List<Long>> result = new ArrayList<>();
            for (Future<List<Long>> future : futures) {
                result.add(future.get(2, TimeUnit.MINUTES));
            }
            return result;
        } finally {
            pool.shutdownNow();
        }
    }

    /** Persists {@code count} orders in one transaction; their ids in persist order. */
    private static List<Long> persist(EntityManagerFactory factory, int count, String note) {
        return inTransaction(factory, entityManager -> {
            List<Long> ids = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Order order = new Order(note);
                entityManager.persist(order);
                ids.add(order.getId());
            }
            return ids;
        });
    }

    private static List<Long> stored(EntityManagerFactory factory, String note) {
        return inTransaction(
                factory,
                entityManager -> entityManager
                        .createQuery("select o.id from Order o where o.note = :note", Long.class)
                        .setParameter("note", note)
                        .getResultList());
    }

    @SafeVarargs
    private static <T> List<T> concat(List<T>... lists) {
        List<T> all = new ArrayList<>();
        for (List<T> list : lists) {
            all.addAll(list);
        }
        return all;
    }
}
