package dev.counters.benchmarks.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;

/** Ids from a database sequence through Hibernate's pooled optimizer: one {@code nextval} per 50 ids. */
@Entity
@Table(name = "sequence_orders")
public class SequenceOrder extends Order {

    @Id
    @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "sequence_orders_seq")
    @SequenceGenerator(name = "sequence_orders_seq", sequenceName = "sequence_orders_seq", allocationSize = 50)
    private Long id;

    protected SequenceOrder() {}

    public SequenceOrder(String customer, long amount) {
        super(customer, amount);
    }

    @Override
    public Long getId() {
        return id;
    }
}
