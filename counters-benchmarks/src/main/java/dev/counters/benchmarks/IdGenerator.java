package dev.counters.benchmarks;

import dev.counters.benchmarks.jpa.IdentityOrder;
import dev.counters.benchmarks.jpa.Order;
import dev.counters.benchmarks.jpa.Orders;
import dev.counters.benchmarks.jpa.SequenceOrder;
import dev.counters.benchmarks.jpa.TableOrder;
import java.util.List;
import java.util.function.BiFunction;
import javax.sql.DataSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.jpa.repository.JpaRepository;

/**
 * An id generator the JPA report measures: the entity mapped with it, its Spring Data repository, and what the
 * application needs besides (this library's {@code SequenceService}).
 *
 * @param fromInsert the id comes back from the {@code INSERT} (identity): no time apart from it is spent on ids
 * @param ownTables opens what the generator keeps outside Hibernate's schema (this library's tables) on the point's
 *     pool, registers it as beans, and returns what to close after the application
 */
record IdGenerator(
        String name,
        String description,
        Class<? extends Order> entity,
        Class<? extends JpaRepository<? extends Order, Long>> repository,
        BiFunction<String, Long, Order> newOrder,
        boolean fromInsert,
        Beans ownTables) {

    @FunctionalInterface
    interface Beans {
        AutoCloseable register(AnnotationConfigApplicationContext context, DataSource dataSource);
    }

    private static final Beans NONE = (context, dataSource) -> () -> {};

    static List<IdGenerator> all() {
        return List.of(
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
