package dev.counters.benchmarks.jpa;

import dev.counters.hibernate.CountersSequence;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** Ids from this library's block sequence {@code orders}, through {@link CountersSequence}. */
@Entity
@Table(name = "counters_orders")
public class CountersOrder extends Order {

    @Id
    @CountersSequence("orders")
    private Long id;

    protected CountersOrder() {}

    public CountersOrder(String customer, long amount) {
        super(customer, amount);
    }

    @Override
    public Long getId() {
        return id;
    }
}
