package dev.counters.contract;

import dev.counters.spi.CounterStore;
import dev.counters.spi.DeltaLog;
import dev.counters.spi.IdempotentBatches;
import dev.counters.spi.Leases;
import dev.counters.spi.Maxima;
import dev.counters.spi.Sequences;
import dev.counters.spi.ShardCounts;
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

    /** The store's capability: the stores under contract test offer every one. */
    protected static <T> T capability(CounterStore store, Class<T> capability) {
        return store.capability(capability)
                .orElseThrow(() -> new AssertionError(
                        store.getClass().getSimpleName() + " does not offer " + capability.getSimpleName()));
    }

    protected static Leases leases(CounterStore store) {
        return capability(store, Leases.class);
    }

    protected static IdempotentBatches batches(CounterStore store) {
        return capability(store, IdempotentBatches.class);
    }

    protected static DeltaLog deltaLog(CounterStore store) {
        return capability(store, DeltaLog.class);
    }

    protected static ShardCounts shardCounts(CounterStore store) {
        return capability(store, ShardCounts.class);
    }

    protected static Maxima maxima(CounterStore store) {
        return capability(store, Maxima.class);
    }

    protected static Sequences sequences(CounterStore store) {
        return capability(store, Sequences.class);
    }

    /**
     * Repeats a store call while it fails in a way that surely wrote nothing, as a strategy's retry does: a store
     * tries each call once, and concurrent writers of a new row make the database roll some of them back. Each repeat
     * waits a random time up to {@code attempt} milliseconds, as a strategy's retry backs off with jitter: repeated at
     * once, writers of the same few rows on a loaded machine can collide again every time.
     */
    protected static <T> T retried(java.util.function.Supplier<T> call) {
        for (int attempt = 1; ; attempt++) {
            try {
                return call.get();
            } catch (dev.counters.TransientStoreException e) {
                if (attempt >= 20) {
                    throw e;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(
                        java.util.concurrent.ThreadLocalRandom.current().nextLong(attempt * 1_000_000L));
            }
        }
    }
}
