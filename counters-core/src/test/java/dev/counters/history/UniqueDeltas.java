package dev.counters.history;

import java.util.HashSet;
import java.util.Set;
import java.util.random.RandomGenerator;

/**
 * Random deltas, each drawn once per instance, so that the set of deltas that reached a counter can be recognised
 * from its value. Large deltas (the default) make a wrong value that happens to equal some subset of the unknown
 * deltas vanishingly unlikely: with 25 unknown deltas of about 2^40, 2^25 subset sums are spread over 2^45 values.
 */
public final class UniqueDeltas {

    private final RandomGenerator random;
    private final long origin;
    private final long bound;
    private final boolean negatives;
    private final Set<Long> used = new HashSet<>();

    private UniqueDeltas(RandomGenerator random, long origin, long bound, boolean negatives) {
        this.random = random;
        this.origin = origin;
        this.bound = bound;
        this.negatives = negatives;
    }

    /** Positive deltas in [2^40, 2^41): a counter can take four million of them before it overflows. */
    public static UniqueDeltas large(RandomGenerator random) {
        return new UniqueDeltas(random, 1L << 40, 1L << 41, false);
    }

    /** Deltas in [origin, bound); negated at random with {@code negatives}. */
    public static UniqueDeltas between(RandomGenerator random, long origin, long bound, boolean negatives) {
        return new UniqueDeltas(random, origin, bound, negatives);
    }

    public synchronized long next() {
        while (true) {
            long delta = random.nextLong(origin, bound);
            if (negatives && random.nextBoolean()) {
                delta = -delta;
            }
            if (used.add(delta) && !used.contains(-delta)) {
                return delta;
            }
        }
    }
}
