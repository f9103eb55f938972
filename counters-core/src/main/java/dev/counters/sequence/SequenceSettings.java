package dev.counters.sequence;

import java.util.Objects;

/**
 * How a sequence hands out numbers.
 *
 * @param mode {@link Mode#BLOCK} (fast, with gaps after restarts) or {@link Mode#GAPLESS}
 * @param blockSize how many numbers one database round trip reserves in block mode (at least 1), at first and
 *     again after an idle spell
 * @param maxBlockSize the most numbers one round trip reserves: while half a block goes in under 100 ms, the next
 *     block is twice as large, up to this (at least {@code blockSize}; equal to it, blocks never grow). After a
 *     restart, at most this many numbers are skipped
 * @param start the first number
 * @param increment the distance between consecutive numbers (at least 1)
 * @param maxValue the largest number handed out; at most {@code Long.MAX_VALUE - increment}; past it,
 *     {@link dev.counters.SequenceExhaustedException}
 */
public record SequenceSettings(Mode mode, int blockSize, int maxBlockSize, long start, long increment, long maxValue) {

    /** How numbers are reserved. */
    public enum Mode {
        /**
         * A block of numbers per round trip, handed out from memory, the next block reserved in the background
         * before the current one runs out. Unique across threads, processes and restarts; increasing for each
         * caller; the unused rest of a block is a gap after a restart.
         */
        BLOCK,
        /** Each number committed in a transaction of its own before it is returned: consecutive, and slow. */
        GAPLESS
    }

    public SequenceSettings {
        Objects.requireNonNull(mode, "mode");
        if (blockSize < 1) {
            throw new IllegalArgumentException("sequence block-size must be >= 1, was " + blockSize);
        }
        if (maxBlockSize < blockSize) {
            throw new IllegalArgumentException(
                    "sequence max-block-size (" + maxBlockSize + ") must not be below block-size (" + blockSize + ")");
        }
        if (increment < 1) {
            throw new IllegalArgumentException("sequence increment must be >= 1, was " + increment);
        }
        if (maxValue > Long.MAX_VALUE - increment) {
            throw new IllegalArgumentException("sequence max-value must be at most Long.MAX_VALUE - increment ("
                    + (Long.MAX_VALUE - increment) + "), was " + maxValue);
        }
        if (start > maxValue) {
            throw new IllegalArgumentException(
                    "sequence start (" + start + ") must not be above max-value (" + maxValue + ")");
        }
    }

    /**
     * Block mode, blocks of 1,000 growing up to 1,000,000 under load, starting at 1, step 1, up to
     * {@code Long.MAX_VALUE - 1}.
     */
    public static SequenceSettings defaults() {
        return new SequenceSettings(Mode.BLOCK, 1_000, 1_000_000, 1, 1, Long.MAX_VALUE - 1);
    }

    /** Gapless mode, starting at 1, step 1. */
    public static SequenceSettings gapless() {
        return defaults().withMode(Mode.GAPLESS);
    }

    public SequenceSettings withMode(Mode mode) {
        return new SequenceSettings(mode, blockSize, maxBlockSize, start, increment, maxValue);
    }

    /** Sets the first block's size; the largest block is raised to it if it was smaller. */
    public SequenceSettings withBlockSize(int blockSize) {
        return new SequenceSettings(mode, blockSize, Math.max(blockSize, maxBlockSize), start, increment, maxValue);
    }

    public SequenceSettings withMaxBlockSize(int maxBlockSize) {
        return new SequenceSettings(mode, blockSize, maxBlockSize, start, increment, maxValue);
    }

    public SequenceSettings withStart(long start) {
        return new SequenceSettings(mode, blockSize, maxBlockSize, start, increment, maxValue);
    }

    public SequenceSettings withIncrement(long increment) {
        return new SequenceSettings(
                mode, blockSize, maxBlockSize, start, increment, Math.min(maxValue, Long.MAX_VALUE - increment));
    }

    public SequenceSettings withMaxValue(long maxValue) {
        return new SequenceSettings(mode, blockSize, maxBlockSize, start, increment, maxValue);
    }
}
