package dev.counters.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An {@code int} id, on a property getter. */
@Entity
@Table(name = "hib_ticket")
public class Ticket {

    private int id;

    @Id
    @CountersSequence("hib-tickets")
    public int getId() {
        return id;
    }

    public void setId(int id) {
        this.id = id;
    }
}
