package dev.counters.spi;

/**
 * A cell's value and its version. The version starts at 1 when the cell is created and grows by one with every
 * write, whichever operation made it.
 */
public record VersionedValue(long value, long version) {

    public VersionedValue {
        if (version < 1) {
            throw new IllegalArgumentException("version must be >= 1, was " + version);
        }
    }
}
