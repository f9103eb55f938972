package dev.counters.benchmarks;

import dev.counters.benchmarks.jpa.CountersOrder;
import dev.counters.benchmarks.jpa.IdentityOrder;
import dev.counters.benchmarks.jpa.Order;
import dev.counters.benchmarks.jpa.Orders;
import dev.counters.benchmarks.jpa.SequenceOrder;
import dev.counters.benchmarks.jpa.TableOrder;
import dev.counters.hibernate.CountersSequence;
import dev.counters.sequence.SequenceService;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.data.jpa.repository.JpaRepository;

/**
 * An id generator the JPA report measures: the entity mapped with it, its Spring Data repository, and what the
 * application needs besides (this library's {@code SequenceService}).
 *
 * @param fromInsert the id comes back from the {@code INSERT} (identity): no time apart from it is spent on ids
 * @param own opens what the generator keeps outside Hibernate's schema (this library's tables and service) on the
 *     point's pool
 */
record IdGenerator(
        String name,
        String description,
        Class<? extends Order> entity,
        Class<? extends JpaRepository<? extends Order, Long>> repository,
        BiFunction<String, Long, Order> newOrder,
        boolean fromInsert,
        Opener own) {

    /** What the generator adds to the application: persistence-unit properties, and what to close after it. */
    record Own(Map<String, Object> hibernate, AutoCloseable closer) {}

    @FunctionalInterface
    interface Opener {
        Own open(DataSource dataSource);
    }

    /**
     * A Hibernate generator's point. Its persistence unit maps every entity, so Hibernate builds
     * {@code @CountersSequence}'s generator too, which needs a service, but asks for it only at its first id: none here.
     */
    private static final Opener NONE = dataSource -> new Own(
            Map.of(CountersSequence.SEQUENCE_SERVICE, (Supplier<SequenceService>) () -> {
                throw new IllegalStateException("This point measures a Hibernate generator: no SequenceService");
            }),
            () -> {});

    /**
     * The application's {@link SequenceService} on fresh tables, with its default settings (blocks of 1,000), in the
     * persistence-unit property {@link CountersSequence#SEQUENCE_SERVICE}, as the Spring Boot starter sets it.
     */
    private static Own sequenceService(DataSource dataSource) {
        SequenceService service =
                SequenceService.builder(FreshTables.store(dataSource)).build();
        return new Own(Map.of(CountersSequence.SEQUENCE_SERVICE, service), service::close);
    }

    static List<IdGenerator> all() {
        return List.of(
                new IdGenerator(
                        "counters",
                        "this library, `@CountersSequence(\"orders\")`: a block sequence (its defaults: blocks of 1,000"
                                + " growing up to 1,000,000 under load), the next block reserved before the current one runs out",
                        CountersOrder.class,
                        Orders.Counters.class,
                        CountersOrder::new,
                        false,
                        IdGenerator::sequenceService),
                new IdGenerator(
                        "sequence-pooled",
                        "Hibernate `SEQUENCE`, pooled optimizer, allocation size 50 (its default):"
                                + " `@GeneratedValue(strategy = SEQUENCE)` with `@SequenceGenerator(allocationSize = 50)`",
                        SequenceOrder.class,
                        Orders.Sequences.class,
                        SequenceOrder::new,
                        false,
                        NONE),
                new IdGenerator(
                        "table",
                        "Hibernate `TABLE`, allocation size 50 (its default): `@GeneratedValue(strategy = TABLE)`,"
                                + " a row of `hibernate_sequences` updated in a transaction of its own",
                        TableOrder.class,
                        Orders.Tables.class,
                        TableOrder::new,
                        false,
                        NONE),
                new IdGenerator(
                        "identity",
                        "`@GeneratedValue(strategy = IDENTITY)`: the table's AUTO_INCREMENT / identity column",
                        IdentityOrder.class,
                        Orders.Identities.class,
                        IdentityOrder::new,
                        true,
                        NONE));
    }

    /** The generators that hand out ids before the insert: those measured alone. */
    static List<IdGenerator> apart() {
        return all().stream().filter(generator -> !generator.fromInsert()).toList();
    }

    static IdGenerator named(String name) {
        return all().stream()
                .filter(generator -> generator.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown id generator '" + name + "'; known: "
                        + all().stream().map(IdGenerator::name).toList()));
    }
}
