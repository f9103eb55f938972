package dev.counters.benchmarks;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;

/** The entity a Spring user writes for a counter by hand: a value and a {@code @Version} column. */
@Entity
@Table(name = "jpa_counter")
public class JpaCounter {

    @Id
    int id;

    @Column(name = "counter_value", nullable = false)
    long value;

    @Version
    long version;

    protected JpaCounter() {}

    JpaCounter(int id) {
        this.id = id;
    }
}
