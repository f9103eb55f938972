package dev.counters.spring.boot.slices;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.sequence.SequenceService;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.data.jpa.test.autoconfigure.DataJpaTest;
import org.springframework.boot.jdbc.test.autoconfigure.JdbcTest;
import org.springframework.boot.jooq.test.autoconfigure.JooqTest;

/**
 * Boot's data slices include counters, on the slice's test database. Each test runs in a transaction that is rolled
 * back, which atomic increments join: {@code incrementAndGet} reads inside it.
 */
class DataSlicesTest {

    abstract static class SliceHasCounters {

        @Autowired
        CounterService counters;

        @Autowired
        SequenceService sequences;

        @Test
        void countersAndSequencesAreThere() {
            assertThat(counters.incrementAndGet("orders", 2)).isEqualTo(2);
            assertThat(sequences.sequence("invoices").next()).isPositive();
        }
    }

    @Nested
    @JdbcTest
    class Jdbc extends SliceHasCounters {}

    @Nested
    @JooqTest
    class Jooq extends SliceHasCounters {}

    @Nested
    @DataJpaTest
    class DataJpa extends SliceHasCounters {}
}
