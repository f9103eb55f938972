package dev.counters.spring.jpa;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.persistence.EntityManagerFactory;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.AutoConfigureTestDatabase;

/** {@code @DataJpaTest} with {@code @CountersSequence} ids, on a database of the class's own. */
@DataJpaTest
@AutoConfigureTestDatabase(replace = AutoConfigureTestDatabase.Replace.NONE)
abstract class InvoiceSliceContract {

    @Autowired
    InvoiceRepository repository;

    @Autowired
    EntityManagerFactory entityManagerFactory;

    private Statistics statistics;

    @BeforeEach
    void clearStatistics() {
        statistics = entityManagerFactory.unwrap(SessionFactory.class).getStatistics();
        statistics.clear();
    }

    @Test
    void idsAreTakenWhenSavedBeforeTheInsert() {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ids.add(repository.save(new Invoice("slice")).getId());
        }
        assertThat(ids).doesNotContainNull().isSorted().doesNotHaveDuplicates();
        assertThat(statistics.getEntityInsertCount()).isZero();

        repository.flush();
        assertThat(statistics.getEntityInsertCount()).isEqualTo(3);
        assertThat(repository.findByCustomer("slice"))
                .extracting(Invoice::getId)
                .containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void saveAllInsertsInBatches() {
        List<Invoice> invoices = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            invoices.add(new Invoice("batch"));
        }
        repository.saveAll(invoices);
        repository.flush();

        assertThat(statistics.getEntityInsertCount()).isEqualTo(200);
        // One insert statement prepared per batch at most (one by one, it would be 200).
        assertThat(statistics.getPrepareStatementCount()).isBetween(1L, 4L);
    }
}
