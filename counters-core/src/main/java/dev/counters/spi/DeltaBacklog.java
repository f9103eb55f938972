package dev.counters.spi;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * A counter's unfolded deltas: how many there are, and when the oldest was appended (null when there are none).
 */
public record DeltaBacklog(long count, @Nullable Instant oldest) {

    public static final DeltaBacklog EMPTY = new DeltaBacklog(0, null);
}
