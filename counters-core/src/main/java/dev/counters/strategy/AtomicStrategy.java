package dev.counters.strategy;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;

/**
 * One cell per counter, one atomic upsert per increment (seed 004, "single-row upsert"). The database's row lock
 * makes it exact; the same lock is why it does not scale on one hot counter. Inside a caller's transaction that
 * the store can join, the upsert is part of it (and holds the row lock until it ends).
 */
final class AtomicStrategy extends CellStrategy {

    /** The one cell of atomic and optimistic counters, so that a counter can move between the two. */
    static final String CELL = "main";

    AtomicStrategy(CounterStore store) {
        super(store);
    }

    @Override
    public String type() {
        return "atomic";
    }

    @Override
    public void increment(CounterName name, long delta) {
        store.callerTransaction().orElse(store).add(name, CELL, delta);
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        return store.callerTransaction().orElse(store).addAndGet(name, CELL, delta);
    }
}
