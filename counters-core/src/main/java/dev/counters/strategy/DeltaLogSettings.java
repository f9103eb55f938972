package dev.counters.strategy;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the {@code delta-log} strategy: one row per increment with a unique id, folded into the counter by
 * periodic recounts. Exact, durable when {@code increment} returns, and safe to retry after an unknown outcome.
 *
 * @param recountAfter a recount is due once the folded value is older than this (the write-up's "a second ago")
 * @param recountAtDeltas a recount is due once this many deltas were appended since the last one
 * @param readFolded whether {@code get} returns the folded value only (one row, possibly stale by the unfolded
 *     deltas) instead of folded plus unfolded (exact); {@code getExact} is always exact
 * @param appendAttempts how many times an append is tried; retries reuse the delta's id, so they are safe even when
 *     an earlier attempt's outcome is unknown
 * @param foldedRetention how long a folded delta is kept as a tombstone, so that a late retry of its append is
 *     recognised; retries stop once half of it has passed since the first attempt
 */
public record DeltaLogSettings(
        Duration recountAfter, long recountAtDeltas, boolean readFolded, int appendAttempts, Duration foldedRetention)
        implements StrategySettings {

    public DeltaLogSettings {
        Objects.requireNonNull(recountAfter, "recountAfter");
        if (recountAfter.isNegative() || recountAfter.isZero()) {
            throw new IllegalArgumentException("delta-log recount-after must be positive, was " + recountAfter);
        }
        if (recountAtDeltas < 1) {
            throw new IllegalArgumentException("delta-log recount-at-deltas must be >= 1, was " + recountAtDeltas);
        }
        if (appendAttempts < 1) {
            throw new IllegalArgumentException("delta-log append-attempts must be >= 1, was " + appendAttempts);
        }
        Objects.requireNonNull(foldedRetention, "foldedRetention");
        if (foldedRetention.compareTo(Duration.ofSeconds(10)) < 0) {
            throw new IllegalArgumentException(
                    "delta-log folded-retention must be at least 10s, was " + foldedRetention);
        }
    }

    /** Recount after 1 s or 1,000 deltas; exact reads; 5 append attempts; folded deltas kept 10 minutes. */
    public static DeltaLogSettings defaults() {
        return new DeltaLogSettings(Duration.ofSeconds(1), 1_000, false, 5, Duration.ofMinutes(10));
    }

    public DeltaLogSettings withRecountAfter(Duration recountAfter) {
        return new DeltaLogSettings(recountAfter, recountAtDeltas, readFolded, appendAttempts, foldedRetention);
    }

    public DeltaLogSettings withRecountAtDeltas(long recountAtDeltas) {
        return new DeltaLogSettings(recountAfter, recountAtDeltas, readFolded, appendAttempts, foldedRetention);
    }

    public DeltaLogSettings withAppendAttempts(int appendAttempts) {
        return new DeltaLogSettings(recountAfter, recountAtDeltas, readFolded, appendAttempts, foldedRetention);
    }

    public DeltaLogSettings withReadFolded(boolean readFolded) {
        return new DeltaLogSettings(recountAfter, recountAtDeltas, readFolded, appendAttempts, foldedRetention);
    }

    @Override
    public String name() {
        return "delta-log";
    }

    @Override
    public <R> R accept(Visitor<R> visitor) {
        return visitor.deltaLog(this);
    }
}
