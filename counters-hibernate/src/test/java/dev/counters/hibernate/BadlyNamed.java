package dev.counters.hibernate;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A sequence name the library refuses. */
@Entity
@Table(name = "hib_badly_named")
public class BadlyNamed {

    @Id
    @CountersSequence("no spaces allowed")
    private Long id;
}
