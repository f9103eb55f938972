package dev.counters.observation;

import io.micrometer.observation.Observation;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What one observed store operation is about: a combined write, a buffered flush, a delta-log recount or a sequence
 * reservation. A {@link CountersObservationConvention} turns it into the observation's name and tags.
 */
public final class CountersObservationContext extends Observation.Context {

    /** The store operations that are observed, each with its default observation name. */
    public enum Operation {
        /** One combined write of a cell (atomic, optimistic, sharded, node, delta-log), carrying the deltas of waiting callers. */
        WRITE("counters.store.write"),
        /** A buffered strategy's flush: one transaction carrying every pending delta. */
        FLUSH("counters.store.flush"),
        /** A delta-log recount: unfolded deltas folded into the counter's cell. */
        RECOUNT("counters.store.recount"),
        /** A sequence reservation: a block of numbers, or a gapless number in its transaction. */
        RESERVE("counters.store.reserve"),
        /** A bounded counter's move of room between its pool row and a node's row: a refill, give-back or collect. */
        TRANSFER("counters.store.transfer");

        private final String observationName;

        Operation(String observationName) {
            this.observationName = observationName;
        }

        /** The observation's name unless a convention gives another: {@code counters.store.write}, ... */
        public String getObservationName() {
            return observationName;
        }
    }

    private final Operation operation;
    private final @Nullable String rule;
    private final @Nullable String strategy;
    private final @Nullable String counterName;
    private final @Nullable String sequenceMode;

    private CountersObservationContext(
            Operation operation,
            @Nullable String rule,
            @Nullable String strategy,
            @Nullable String counterName,
            @Nullable String sequenceMode) {
        this.operation = Objects.requireNonNull(operation, "operation");
        this.rule = rule;
        this.strategy = strategy;
        this.counterName = counterName;
        this.sequenceMode = sequenceMode;
    }

    /**
     * A counter strategy's operation ({@link Operation#WRITE}, {@link Operation#FLUSH}, {@link Operation#RECOUNT}).
     *
     * @param rule the configured rule the counter falls under: its exact name, its pattern, or {@code (default)}
     * @param strategy the strategy's name: {@code atomic}, {@code buffered}, ...
     * @param counterName the counter's name, or null for an operation that carries several counters (a flush)
     */
    public static CountersObservationContext counter(
            Operation operation, String rule, String strategy, @Nullable String counterName) {
        return new CountersObservationContext(
                operation,
                Objects.requireNonNull(rule, "rule"),
                Objects.requireNonNull(strategy, "strategy"),
                counterName,
                null);
    }

    /**
     * A sequence's reservation ({@link Operation#RESERVE}).
     *
     * @param sequenceName the sequence's name
     * @param mode the sequence's mode: {@code block} or {@code gapless}
     */
    public static CountersObservationContext sequence(String sequenceName, String mode) {
        return new CountersObservationContext(
                Operation.RESERVE,
                null,
                null,
                Objects.requireNonNull(sequenceName, "sequenceName"),
                Objects.requireNonNull(mode, "mode"));
    }

    /** The store operation observed. */
    public Operation getOperation() {
        return operation;
    }

    /** The configured rule of the counter ({@code page-views}, {@code likes.*} or {@code (default)}); null for a sequence. */
    public @Nullable String getRule() {
        return rule;
    }

    /** The counter's strategy ({@code atomic}, {@code sharded}, ...); null for a sequence. */
    public @Nullable String getStrategy() {
        return strategy;
    }

    /**
     * The counter's or sequence's name; null for a flush, which carries many counters. Names may be many (one per
     * user, say) and may identify people: the default convention leaves them out of the tags.
     */
    public @Nullable String getCounterName() {
        return counterName;
    }

    /** The sequence's mode ({@code block} or {@code gapless}); null for a counter. */
    public @Nullable String getSequenceMode() {
        return sequenceMode;
    }
}
