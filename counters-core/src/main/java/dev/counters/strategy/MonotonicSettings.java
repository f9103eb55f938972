package dev.counters.strategy;

import java.util.Objects;

/**
 * Settings of the {@code monotonic} strategy (the argument checks of "Efficient Global Counters, revisited": 1 to 999
 * shards, a chance within [0, 1]): the current value in a cache with atomic increment, the durable copy the maximum
 * over shard rows written with probability {@code chance-to-write}. Only grows.
 *
 * @param shards how many rows hold the durable maximum
 * @param chanceToWrite the probability that an increment writes its value to a random shard; 1.0 writes every
 *     value before returning it, which makes the counter safe as an id generator on one node
 * @param cache where the current values are cached: in the service's shared cache (given to the builder, shared by
 *     every node) or in this JVM
 */
public record MonotonicSettings(int shards, double chanceToWrite, CacheChoice cache) implements StrategySettings {

    public static final int MAX_SHARDS = 999;

    public MonotonicSettings {
        Objects.requireNonNull(cache, "cache");
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException(
                    "monotonic shards must be between 1 and " + MAX_SHARDS + ", was " + shards);
        }
        if (!(chanceToWrite >= 0.0 && chanceToWrite <= 1.0)) {
            throw new IllegalArgumentException(
                    "monotonic chance-to-write must be between 0.0 and 1.0, was " + chanceToWrite);
        }
    }

    /** With {@link CacheChoice#DEFAULT}: the shared cache if the builder was given one, else one in this JVM. */
    public MonotonicSettings(int shards, double chanceToWrite) {
        this(shards, chanceToWrite, CacheChoice.DEFAULT);
    }

    /** 20 shards, every value written, the default cache. */
    public static MonotonicSettings defaults() {
        return new MonotonicSettings(20, 1.0);
    }

    public MonotonicSettings withChanceToWrite(double chanceToWrite) {
        return new MonotonicSettings(shards, chanceToWrite, cache);
    }

    public MonotonicSettings withShards(int shards) {
        return new MonotonicSettings(shards, chanceToWrite, cache);
    }

    public MonotonicSettings withCache(CacheChoice cache) {
        return new MonotonicSettings(shards, chanceToWrite, cache);
    }

    @Override
    public String name() {
        return "monotonic";
    }

    @Override
    public boolean handsOutValues() {
        return true;
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.monotonic(this);
    }
}
