package dev.counters.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A String id, which the generator refuses. */
@Entity
@Table(name = "hib_named")
public class Named {

    @Id
    @CountersSequence("hib-named")
    private String code;
}
