package dev.counters.strategy;

/**
 * The {@code atomic} strategy, which has nothing to set: one row per counter, changed by a single atomic upsert
 * ({@code value = value + delta}) per increment. Exact and durable when {@code increment} returns; every writer of the
 * same counter waits for the row lock, so one hot counter manages roughly one commit per disk sync.
 */
public record AtomicSettings() implements StrategySettings {

    private static final AtomicSettings DEFAULTS = new AtomicSettings();

    public static AtomicSettings defaults() {
        return DEFAULTS;
    }

    @Override
    public String name() {
        return "atomic";
    }

    @Override
    public boolean countsMembers() {
        return true;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.atomic(this);
    }
}
