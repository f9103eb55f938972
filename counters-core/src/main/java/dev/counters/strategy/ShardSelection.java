package dev.counters.strategy;

/** How a sharded increment picks its shard. */
public enum ShardSelection {
    /** A random shard per increment, as in seed 002: spreads any load evenly. */
    RANDOM,
    /**
     * A shard fixed per thread: a thread's increments stay on one row, so two threads of this JVM contend only
     * when they share a shard. Best when the threads are long-lived (platform thread pools).
     */
    THREAD
}
