package dev.counters;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The activity of the strategy serving one configuration rule.
 *
 * @param rule the exact name or pattern the strategy was configured for, or {@link #DEFAULT_RULE}; its number is
 *     bounded by the configuration, so it suits a metric tag where counter names would not
 * @param strategy the strategy's type, for example {@code buffered}
 * @param increments increments accepted since the service started
 * @param activity what the strategy reports of itself
 * @param membersAdded adds of members of its membership counters ({@link MembershipCounter}) that made a member, each
 *     counted as an increment too
 * @param membersRemoved removes that took a member out, each counted as an increment too
 * @param membersUnchanged adds and removes that found the member as asked, and wrote nothing
 */
public record StrategyStatistics(
        String rule,
        String strategy,
        long increments,
        Activity activity,
        long membersAdded,
        long membersRemoved,
        long membersUnchanged) {

    /** The rule of counters no name or pattern matches. Not a valid counter name, so it cannot clash with one. */
    public static final String DEFAULT_RULE = "(default)";

    /** The statistics of a rule whose counters count no members. */
    public StrategyStatistics(String rule, String strategy, long increments, Activity activity) {
        this(rule, strategy, increments, activity, 0, 0, 0);
    }

    /**
     * What a strategy has done since it started and, for write-behind strategies, what it holds now: the raw
     * material of metrics and health checks. Counts only grow.
     *
     * @param conflicts compare-and-set attempts that found a newer version (optimistic), ids or keys found taken
     * @param retries attempts repeated after a conflict or a failure
     * @param contentionFailures increments refused with {@link CounterContentionException}
     * @param buffer the state of the buffer, for strategies that have one; otherwise null
     * @param escrow what a bounded strategy did; otherwise null
     */
    public record Activity(
            long conflicts,
            long retries,
            long contentionFailures,
            @Nullable BufferActivity buffer,
            @Nullable EscrowActivity escrow) {

        /** A strategy with nothing to report. */
        public static final Activity NONE = new Activity(0, 0, 0, null, null);

        /** The activity of a strategy that is not bounded. */
        public Activity(long conflicts, long retries, long contentionFailures, @Nullable BufferActivity buffer) {
            this(conflicts, retries, contentionFailures, buffer, null);
        }
    }

    /**
     * What a bounded strategy did since it started, and the room its node holds now.
     *
     * @param refusals changes and holds refused because they would have left the bounds
     * @param refills transfers of room from the pool row into this node's allowances
     * @param refilledUnits the units those transfers moved
     * @param poolChanges changes written to the shared pool row (escrow off, a cold counter, or near the bound)
     * @param givenBackUnits units this node gave back to the pool: idle, closing, near the bound
     * @param allowanceUnits the room this node holds in its allowances now
     * @param expiredHolds holds that expired and went back, found by this process
     * @param strandedUnits room found in the allowances of nodes whose claim had ended, and given back to the pool
     */
    public record EscrowActivity(
            long refusals,
            long refills,
            long refilledUnits,
            long poolChanges,
            long givenBackUnits,
            long allowanceUnits,
            long expiredHolds,
            long strandedUnits) {}

    /**
     * The state of a write-behind buffer.
     *
     * @param flushes flushes that committed
     * @param failedFlushes flush attempts that failed (each is retried with the same key)
     * @param flushTime total time spent in flush attempts, failed ones included
     * @param pendingCounters counters holding increments not yet written (the bound applies to this)
     * @param pendingIncrements increments made since the last flush started
     * @param maxPendingCounters the bound on {@code pendingCounters}
     * @param flushLag how long the oldest unwritten increment may have waited: the time since the last successful
     *     flush while anything is pending, zero otherwise
     * @param lastFailure why the last flush attempt failed, while the store keeps failing; null once a flush succeeds
     */
    public record BufferActivity(
            long flushes,
            long failedFlushes,
            Duration flushTime,
            int pendingCounters,
            long pendingIncrements,
            int maxPendingCounters,
            Duration flushLag,
            @Nullable String lastFailure) {

        /** Whether the flusher is failing to reach the store. */
        public boolean failing() {
            return lastFailure != null;
        }

        /** Whether the buffer is at its bound, so new counters are refused or wait. */
        public boolean full() {
            return pendingCounters >= maxPendingCounters;
        }
    }
}
