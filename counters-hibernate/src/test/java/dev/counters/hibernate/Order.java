package dev.counters.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "hib_order")
public class Order {

    @Id
    @CountersSequence("hib-orders")
    private Long id;

    private String note;

    protected Order() {}

    public Order(String note) {
        this.note = note;
    }

    public Long getId() {
        return id;
    }

    public String getNote() {
        return note;
    }
}
