package dev.counters.benchmarks.jpa;

import org.springframework.data.jpa.repository.JpaRepository;

/** The Spring Data JPA repositories of the measured entities, one per id generator. */
public final class Orders {

    private Orders() {}

    public interface Counters extends JpaRepository<CountersOrder, Long> {}

    public interface Sequences extends JpaRepository<SequenceOrder, Long> {}

    public interface Tables extends JpaRepository<TableOrder, Long> {}

    public interface Identities extends JpaRepository<IdentityOrder, Long> {}
}
