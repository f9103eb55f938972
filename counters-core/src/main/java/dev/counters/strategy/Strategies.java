package dev.counters.strategy;

/** Factories for the built-in strategies. */
public final class Strategies {

    private Strategies() {
    }

    /**
     * {@code atomic}: one row per counter, changed by a single atomic upsert ({@code value = value + delta}) per
     * increment. Exact and durable when {@code increment} returns; every writer of the same counter waits for the
     * row lock, so one hot counter manages roughly one commit per disk sync.
     */
    public static StrategyFactory atomic() {
        return context -> new AtomicStrategy(context.store());
    }
}
