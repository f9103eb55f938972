package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.spi.CounterStore;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * One cell per counter, one atomic upsert per increment (the single-row upsert of "Poor man's distributed counter").
 * The database's row lock makes it exact; the same lock is why it does not scale on one hot counter. Inside a caller's
 * transaction that the store can join, the upsert is part of it (and holds the row lock until it ends), and it is
 * neither combined nor retried: the database may have rolled back the caller's whole transaction, which only the caller
 * can repeat. Outside one, the concurrent increments of a counter in this JVM share upserts ({@link Combiner}): while
 * one upsert waits for its commit, the deltas arriving meanwhile queue up for the next.
 */
public final class AtomicStrategy extends CellStrategy implements CountsMembers {

    /** The one cell of atomic and optimistic counters, so that a counter can move between the two. */
    public static final String CELL = "main";

    public AtomicStrategy(StrategyContext context) {
        super(context, StrategyContext.transientFailures());
    }

    @Override
    public void increment(CounterName name, long delta) {
        increment(name, combiner(name, CELL), delta);
    }

    private void increment(CounterName name, Combiner combiner, long delta) {
        Optional<CounterStore> callerTransaction = store.callerTransaction();
        if (callerTransaction.isPresent()) {
            callerTransaction.get().add(name, CELL, delta);
        } else {
            combiner.submit(delta, false);
        }
    }

    @Override
    public LongConsumer incrementer(CounterName name) {
        return new HeldCounter(name, combiner(name, CELL));
    }

    /** A kept handle's increments: it holds the counter's combiner, and skips the combiners' cache. */
    private final class HeldCounter implements LongConsumer {

        private final CounterName name;
        private final Combiner combiner;

        HeldCounter(CounterName name, Combiner combiner) {
            this.name = name;
            this.combiner = combiner;
        }

        @Override
        public void accept(long delta) {
            increment(name, combiner, delta);
        }
    }

    /** A membership change goes to the one cell, in a transaction of its own (never the caller's). */
    @Override
    String memberCell(CounterName name) {
        return CELL;
    }

    @Override
    boolean joinsCallerTransactions() {
        return true;
    }

    @Override
    KeyedIncrements.KeyedCellWrite keyedWrite(CounterName name, long delta) {
        return KeyedIncrements.KeyedCellWrite.add(name, CELL, delta);
    }

    @Override
    public long incrementAndGet(CounterName name, long delta) {
        Optional<CounterStore> callerTransaction = store.callerTransaction();
        return callerTransaction.isPresent()
                ? callerTransaction.get().addAndGet(name, CELL, delta)
                : addCombined(name, CELL, delta, true);
    }
}
