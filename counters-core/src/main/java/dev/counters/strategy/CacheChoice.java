package dev.counters.strategy;

/**
 * Which cache a strategy with one ({@code sharded}'s cached totals, {@code monotonic}'s values) uses: the shared one
 * given to the builder ({@code CounterServiceBuilder.totalCache}, {@code monotonicCache}), or one in this JVM.
 */
public enum CacheChoice {
    /** The shared cache if the builder was given one, else one in this JVM. */
    DEFAULT,
    /** A cache in this JVM, even when a shared one is given: it sees only this node's increments. */
    LOCAL,
    /** The shared cache: building the service fails when the builder was given none. */
    SHARED
}
