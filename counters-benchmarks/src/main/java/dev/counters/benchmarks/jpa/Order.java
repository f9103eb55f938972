package dev.counters.benchmarks.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.MappedSuperclass;

/**
 * What every measured entity holds besides its id: a small order row. One subclass per id generator, so that each
 * generator maps the way its documentation shows and inserts into a table of its own.
 */
@MappedSuperclass
public abstract class Order {

    @Column(nullable = false)
    private String customer;

    @Column(nullable = false)
    private long amount;

    protected Order() {}

    protected Order(String customer, long amount) {
        this.customer = customer;
        this.amount = amount;
    }

    public abstract Long getId();
}
