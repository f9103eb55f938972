package dev.counters.benchmarks.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.TableGenerator;

/**
 * Ids from Hibernate's {@code TABLE} generator: a row of {@code hibernate_sequences} updated in a transaction of its
 * own once per 50 ids (JPA's default allocation size), what MySQL (no sequences) is left with.
 */
@Entity
@Table(name = "table_orders")
public class TableOrder extends Order {

    @Id
    @GeneratedValue(strategy = GenerationType.TABLE, generator = "table_orders_ids")
    @TableGenerator(name = "table_orders_ids", allocationSize = 50)
    private Long id;

    protected TableOrder() {}

    public TableOrder(String customer, long amount) {
        super(customer, amount);
    }

    @Override
    public Long getId() {
        return id;
    }
}
