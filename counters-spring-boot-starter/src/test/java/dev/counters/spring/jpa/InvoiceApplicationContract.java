package dev.counters.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;

/**
 * The whole application, with {@code @CountersSequence} ids from the starter's {@code SequenceService}: many
 * threads, batches, a rolled-back transaction, a second instance of the application on the same database, and a
 * restart.
 */
@SpringBootTest(classes = InvoiceApplication.class)
abstract class InvoiceApplicationContract {

    @Autowired
    InvoiceRepository repository;

    @Autowired
    Invoices invoices;

    @Autowired
    EntityManagerFactory entityManagerFactory;

    @Autowired
    Environment environment;

    private static String customer() {
        return UUID.randomUUID().toString();
    }

    @Test
    void manyThreadsGetUniqueIdsIncreasingForEach() throws Exception {
        String customer = customer();
        List<List<Long>> perThread = saveConcurrently(repository, 8, 100, customer);

        Set<Long> all = new HashSet<>();
        for (List<Long> ids : perThread) {
            assertThat(ids).hasSize(100).isSorted().doesNotHaveDuplicates();
            all.addAll(ids);
        }
        assertThat(all).hasSize(800);
        assertThat(ids(customer)).containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void saveAllInsertsInBatches() {
        Statistics statistics =
                entityManagerFactory.unwrap(SessionFactory.class).getStatistics();
        statistics.clear();
        List<Invoice> batch = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            batch.add(new Invoice("batch"));
        }
        repository.saveAll(batch);

        assertThat(statistics.getEntityInsertCount()).isEqualTo(200);
        // One insert statement prepared per batch of 50 at most (one by one, it would be 200).
        assertThat(statistics.getPrepareStatementCount()).isBetween(1L, 4L);
    }

    @Test
    void aRolledBackInsertLeavesAGapAndTheNextIdIsFresh() {
        String customer = customer();
        AtomicLong rolledBack = new AtomicLong();
        assertThatThrownBy(() -> invoices.saveThenFail(customer, rolledBack::set))
                .hasMessage("payment refused");

        long next = repository.save(new Invoice(customer)).getId();
        assertThat(next).isGreaterThan(rolledBack.get());
        assertThat(repository.findById(rolledBack.get())).isEmpty();
        assertThat(ids(customer)).containsExactly(next);
    }

    @Test
    void anotherInstanceNeverSharesAnIdAndARestartContinuesAbove() throws Exception {
        String customer = customer();
        List<Long> all = new ArrayList<>();
        try (ConfigurableApplicationContext other = startAnother()) {
            InvoiceRepository otherRepository = other.getBean(InvoiceRepository.class);
            ExecutorService both = Executors.newFixedThreadPool(2);
            try {
                Future<List<List<Long>>> here = both.submit(() -> saveConcurrently(repository, 4, 100, customer));
                Future<List<List<Long>>> there = both.submit(() -> saveConcurrently(otherRepository, 4, 100, customer));
                here.get(2, TimeUnit.MINUTES).forEach(all::addAll);
                there.get(2, TimeUnit.MINUTES).forEach(all::addAll);
            } finally {
                both.shutdownNow();
            }
        }
        assertThat(all).hasSize(800).doesNotHaveDuplicates();
        assertThat(ids(customer)).containsExactlyInAnyOrderElementsOf(all);

        try (ConfigurableApplicationContext restarted = startAnother()) {
            long first = restarted
                    .getBean(InvoiceRepository.class)
                    .save(new Invoice(customer))
                    .getId();
            assertThat(first)
                    .isGreaterThan(all.stream().mapToLong(Long::longValue).max().orElseThrow());
        }
    }

    /** The same application once more on the same database: another instance, with a SequenceService of its own. */
    private ConfigurableApplicationContext startAnother() {
        List<String> arguments = new ArrayList<>();
        for (String property : TestDatabases.DATABASE_PROPERTIES) {
            String value = environment.getProperty(property);
            if (value != null) {
                arguments.add("--" + property + "=" + value);
            }
        }
        arguments.add("--spring.jpa.hibernate.ddl-auto=none");
        for (String property : TestDatabases.PROPERTIES) {
            arguments.add("--" + property);
        }
        return new SpringApplicationBuilder(InvoiceApplication.class).run(arguments.toArray(String[]::new));
    }

    private List<Long> ids(String customer) {
        return repository.findByCustomer(customer).stream().map(Invoice::getId).toList();
    }

    /** Each thread saves {@code saves} invoices, each in a transaction of its own; its ids in the order it got them. */
    private static List<List<Long>> saveConcurrently(
            InvoiceRepository repository, int threads, int saves, String customer) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<List<Long>>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    List<Long> ids = new ArrayList<>();
                    for (int i = 0; i < saves; i++) {
                        ids.add(repository.save(new Invoice(customer)).getId());
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
}
