package dev.counters.spring.jpa;

import dev.counters.hibernate.CountersSequence;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "jpa_invoice")
public class Invoice {

    @Id
    @CountersSequence("invoices")
    private Long id;

    private String customer;

    protected Invoice() {}

    public Invoice(String customer) {
        this.customer = customer;
    }

    public Long getId() {
        return id;
    }

    public String getCustomer() {
        return customer;
    }
}
