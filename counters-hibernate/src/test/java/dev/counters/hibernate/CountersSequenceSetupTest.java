package dev.counters.hibernate;

import static dev.counters.hibernate.Units.inTransaction;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import jakarta.persistence.EntityManagerFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** What the EntityManagerFactory's build checks, and the service given as a Supplier. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CountersSequenceSetupTest {

    private final DataSource dataSource = TestDatabase.H2.dataSource();
    private SequenceService sequences;

    @BeforeAll
    void start() {
        JooqStores stores = JooqStores.on(TestDatabase.H2);
        Units.deleteRows(TestDatabase.H2, stores.store());
        sequences = SequenceService.builder(stores.store())
                .sequence("hib-orders", SequenceSettings.gapless())
                .defaultSettings(SequenceSettings.defaults())
                .build();
    }

    @AfterAll
    void stop() {
        sequences.close();
    }

    @Test
    void withoutTheServiceTheBuildFails() {
        assertThatThrownBy(() ->
                        Units.unit(TestDatabase.H2, dataSource, Ticket.class).createEntityManagerFactory())
                .hasStackTraceContaining(
                        "@CountersSequence(\"hib-tickets\") on dev.counters.hibernate.Ticket.id needs a"
                                + " SequenceService: set the property 'dev.counters.sequence-service' of the persistence unit");
    }

    @Test
    void aPropertyOfAnotherTypeFailsTheBuild() {
        assertThatThrownBy(() -> Units.unit(TestDatabase.H2, dataSource, Ticket.class)
                        .property(CountersSequence.SEQUENCE_SERVICE, "sequenceService")
                        .createEntityManagerFactory())
                .hasStackTraceContaining("The property 'dev.counters.sequence-service' must hold a"
                        + " dev.counters.sequence.SequenceService or a Supplier of one, and holds a java.lang.String");
    }

    @Test
    void anIdOfAnotherTypeFailsTheBuild() {
        assertThatThrownBy(() -> Units.unit(TestDatabase.H2, dataSource, Named.class)
                        .property(CountersSequence.SEQUENCE_SERVICE, sequences)
                        .createEntityManagerFactory())
                .hasStackTraceContaining(
                        "@CountersSequence(\"hib-named\") on dev.counters.hibernate.Named.code needs a"
                                + " Long, long, Integer or int id, and dev.counters.hibernate.Named.code is a java.lang.String");
    }

    @Test
    void aNameTheLibraryRefusesFailsTheBuild() {
        assertThatThrownBy(() -> Units.unit(TestDatabase.H2, dataSource, BadlyNamed.class)
                        .property(CountersSequence.SEQUENCE_SERVICE, sequences)
                        .createEntityManagerFactory())
                .hasStackTraceContaining(
                        "@CountersSequence(\"no spaces allowed\") on dev.counters.hibernate.BadlyNamed.id: Sequence name");
    }

    @Test
    void aGaplessSequenceFailsTheBuild() {
        assertThatThrownBy(() -> Units.unit(TestDatabase.H2, dataSource, Order.class)
                        .property(CountersSequence.SEQUENCE_SERVICE, sequences)
                        .createEntityManagerFactory())
                .hasStackTraceContaining("@CountersSequence(\"hib-orders\") on dev.counters.hibernate.Order.id needs a"
                        + " block sequence, and sequence 'hib-orders' is gapless");
    }

    @Test
    void aSupplierIsAskedOnceAtTheFirstId() {
        AtomicInteger asked = new AtomicInteger();
        Supplier<SequenceService> supplier = () -> {
            asked.incrementAndGet();
            return sequences;
        };
        try (EntityManagerFactory factory = Units.unit(TestDatabase.H2, dataSource, Ticket.class)
                .property(CountersSequence.SEQUENCE_SERVICE, supplier)
                .createEntityManagerFactory()) {
            assertThat(asked).hasValue(0);
            for (int i = 0; i < 3; i++) {
                inTransaction(factory, entityManager -> {
                    entityManager.persist(new Ticket());
                    return null;
                });
            }
            assertThat(asked).hasValue(1);
        }
    }

    @Test
    void aSupplierOfAGaplessSequenceFailsTheFirstId() {
        try (EntityManagerFactory factory = Units.unit(TestDatabase.H2, dataSource, Order.class)
                .property(CountersSequence.SEQUENCE_SERVICE, (Supplier<SequenceService>) () -> sequences)
                .createEntityManagerFactory()) {
            assertThatThrownBy(() -> inTransaction(factory, entityManager -> {
                        entityManager.persist(new Order("gapless"));
                        return null;
                    }))
                    .hasStackTraceContaining("sequence 'hib-orders' is gapless");
        }
    }
}
