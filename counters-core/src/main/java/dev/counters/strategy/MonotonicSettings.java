package dev.counters.strategy;

/**
 * Settings of the {@code monotonic} strategy (the argument checks of "Efficient Global Counters, revisited": 1 to 999
 * shards, a chance within [0, 1]).
 *
 * @param shards how many rows hold the durable maximum
 * @param chanceToWrite the probability that an increment writes its value to a random shard; 1.0 writes every
 *     value before returning it, which makes the counter safe as an id generator on one node
 */
public record MonotonicSettings(int shards, double chanceToWrite) {

    public static final int MAX_SHARDS = 999;

    public MonotonicSettings {
        if (shards < 1 || shards > MAX_SHARDS) {
            throw new IllegalArgumentException("monotonic shards must be between 1 and " + MAX_SHARDS + ", was " + shards);
        }
        if (!(chanceToWrite >= 0.0 && chanceToWrite <= 1.0)) {
            throw new IllegalArgumentException("monotonic chance-to-write must be between 0.0 and 1.0, was "
                    + chanceToWrite);
        }
    }

    /** 20 shards, every value written. */
    public static MonotonicSettings defaults() {
        return new MonotonicSettings(20, 1.0);
    }

    public MonotonicSettings withChanceToWrite(double chanceToWrite) {
        return new MonotonicSettings(shards, chanceToWrite);
    }

    public MonotonicSettings withShards(int shards) {
        return new MonotonicSettings(shards, chanceToWrite);
    }
}
