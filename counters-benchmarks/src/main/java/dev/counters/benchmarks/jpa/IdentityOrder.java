package dev.counters.benchmarks.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * Ids from the table's own {@code AUTO_INCREMENT}/identity column: the id comes back from the {@code INSERT}, which
 * Hibernate therefore sends at {@code persist}, one at a time (no JDBC batching).
 */
@Entity
@Table(name = "identity_orders")
public class IdentityOrder extends Order {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    protected IdentityOrder() {}

    public IdentityOrder(String customer, long amount) {
        super(customer, amount);
    }

    @Override
    public Long getId() {
        return id;
    }
}
