package dev.counters.contract;

import dev.counters.spi.CounterStore;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the contracts share: the stores under test, and counter names unique to each test, so that one store (and
 * one database schema) can serve every test of a run.
 */
abstract class ContractSupport {

    private final StoreFixture fixture;
    private String prefix = "";

    ContractSupport(StoreFixture fixture) {
        this.fixture = fixture;
    }

    @BeforeEach
    void uniquePrefix() {
        prefix = "t" + UUID.randomUUID().toString().substring(0, 8) + ".";
    }

    /** The store under test. */
    protected CounterStore store() {
        return fixture.store();
    }

    /** A second, independent store instance on the same data, as another JVM or node would have. */
    protected CounterStore anotherStore() {
        return fixture.anotherStore();
    }

    /** The prefix of this test's counter names. */
    protected String prefix() {
        return prefix;
    }

    /** Increments per thread in the concurrency tests. */
    protected int incrementsPerThread() {
        return 10_000;
    }
}
