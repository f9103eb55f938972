package dev.counters.history;

import dev.counters.history.History.Add;
import dev.counters.history.History.Outcome;
import dev.counters.history.History.Read;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Checks a counter's history the way Jepsen and Maelstrom check counters:
 * <ul>
 *   <li>the final value equals the acknowledged deltas plus some subset of the unknown ones (Maelstrom's
 *       pn-counter checker): a lost acknowledged increment, a failed one applied, or any delta applied twice makes
 *       the value miss every such sum;</li>
 *   <li>each read returned a value between what was certainly applied when it began (acknowledged before it was
 *       invoked) and what could have been applied when it ended (attempted before it returned), Jepsen's counter
 *       checker, extended to negative deltas.</li>
 * </ul>
 */
public final class CounterChecker {

    /** Beyond this many unknown outcomes on one counter the exact subset search is too large (2^(n/2) sums). */
    static final int MAX_UNKNOWN = 40;

    private CounterChecker() {}

    /** What a read promises to see. */
    public enum Reads {
        /** Every increment acknowledged before the read began, by any client. */
        LINEARIZABLE,
        /**
         * Only the increments acknowledged to its own session (application node) before it began: a buffered
         * counter reads what is stored plus what its own node holds, not what other nodes have yet to flush.
         */
        READ_YOUR_WRITES
    }

    /** What the check found for one counter. */
    public record Result(
            String counter,
            boolean valid,
            String problem,
            long finalValue,
            long acknowledged,
            int ok,
            int failed,
            int unknown,
            int unknownApplied,
            int reads) {

        @Override
        public String toString() {
            return counter + ": " + (valid ? "valid" : "INVALID, " + problem) + " (final " + finalValue + ", ok " + ok
                    + ", failed " + failed + ", unknown " + unknown + " of which applied " + unknownApplied
                    + ", reads " + reads + ")";
        }
    }

    /** Checks {@code counter}, whose value once every operation completed is {@code finalValue}. */
    public static Result check(History history, String counter, long finalValue) {
        return check(history, counter, finalValue, Reads.LINEARIZABLE);
    }

    /** As {@link #check(History, String, long)}, with reads held to {@code reads}. */
    public static Result check(History history, String counter, long finalValue, Reads reads) {
        return check(history, counter, finalValue, reads, 0, null);
    }

    /**
     * Checks a bounded counter that started at {@code initial}: as {@link #check(History, String, long)} with the
     * deltas counted from {@code initial} (a refused change is recorded {@link Outcome#FAILED}: not applied), and every
     * read and the final value within {@code [min, max]} (null: no such bound).
     */
    public static Result checkBounded(
            History history, String counter, long finalValue, long initial, Long min, Long max) {
        String outside = null;
        List<Long> values = new ArrayList<>();
        history.reads(counter).forEach(read -> values.add(read.value()));
        values.add(finalValue);
        for (long value : values) {
            if ((min != null && value < min) || (max != null && value > max)) {
                outside = "a value " + value + " was read outside the bounds [" + min + ", " + max + "]";
                break;
            }
        }
        return check(history, counter, finalValue, Reads.LINEARIZABLE, initial, outside);
    }

    private static Result check(
            History history, String counter, long finalValue, Reads reads, long initial, String boundProblem) {
        finalValue -= initial; // the deltas are counted from the initial value
        List<Add> adds = history.adds(counter);
        long acknowledged = 0;
        int ok = 0;
        int failed = 0;
        List<Long> unknown = new ArrayList<>();
        List<Long> failedDeltas = new ArrayList<>();
        for (Add add : adds) {
            Outcome outcome = add.completedAt == Long.MAX_VALUE ? Outcome.UNKNOWN : add.outcome;
            switch (outcome) {
                case OK -> {
                    ok++;
                    acknowledged = Math.addExact(acknowledged, add.delta);
                }
                case FAILED -> {
                    failed++;
                    failedDeltas.add(add.delta);
                }
                case UNKNOWN -> unknown.add(add.delta);
            }
        }
        List<Read> done = history.reads(counter).stream()
                .map(read -> new Read(
                        read.session(), read.counter(), read.invokedAt(), read.completedAt(), read.value() - initial))
                .toList();
        String finalProblem = null;
        int applied = -1;
        if (unknown.size() > MAX_UNKNOWN) {
            finalProblem = unknown.size() + " operations with unknown outcome on one counter, more than the "
                    + MAX_UNKNOWN + " an exact check can search: spread the load over more counters";
        } else {
            applied = subsetOfSize(unknown.stream().mapToLong(Long::longValue).toArray(), finalValue - acknowledged);
            if (applied < 0) {
                finalProblem = "final value " + finalValue + " is not the acknowledged " + acknowledged + " plus any"
                        + " subset of the " + unknown.size() + " unknown deltas (off by " + (finalValue - acknowledged)
                        + " from the acknowledged sum): an increment was lost or applied twice"
                        + appliedThoughFailed(unknown, failedDeltas, finalValue - acknowledged);
            }
        }
        // Both checks report: a bad read says something different when the final value is right.
        String readProblem = readProblem(adds, done, reads);
        String problem = java.util.stream.Stream.of(finalProblem, readProblem, boundProblem)
                .filter(java.util.Objects::nonNull)
                .reduce((a, b) -> a + "; and " + b)
                .orElse(null);
        return new Result(
                counter,
                problem == null,
                problem == null ? "" : problem,
                finalValue + initial,
                acknowledged,
                ok,
                failed,
                unknown.size(),
                Math.max(applied, 0),
                done.size());
    }

    /**
     * The diagnosis when increments the caller was told were not applied (a caller that believes it does not repeat
     * them) explain the value: an over-count of what the library called "not applied".
     */
    private static String appliedThoughFailed(List<Long> unknown, List<Long> failed, long target) {
        if (failed.isEmpty() || unknown.size() + failed.size() > MAX_UNKNOWN) {
            return "";
        }
        List<Long> either = new ArrayList<>(unknown);
        either.addAll(failed);
        return subsetOfSize(either.stream().mapToLong(Long::longValue).toArray(), target) < 0
                ? ""
                : "; the value is explained only by increments reported as not applied (failed): the library said"
                        + " \"not applied\" of an applied increment";
    }

    /**
     * Whether some subset of {@code deltas} sums to {@code target}; returns its size, or -1. Meet in the middle:
     * every sum of each half, then a binary search of one half's sorted sums for what the other lacks.
     */
    static int subsetOfSize(long[] deltas, long target) {
        int half = deltas.length / 2;
        long[] left = Arrays.copyOfRange(deltas, 0, half);
        long[] right = Arrays.copyOfRange(deltas, half, deltas.length);
        long[][] rightSums = sums(right); // [sum, mask] pairs sorted by sum
        for (int mask = 0; mask < 1 << left.length; mask++) {
            long sum = 0;
            for (int i = 0; i < left.length; i++) {
                if ((mask & 1 << i) != 0) {
                    sum += left[i];
                }
            }
            int at = Arrays.binarySearch(rightSums[0], target - sum);
            if (at >= 0) {
                return Integer.bitCount(mask) + Long.bitCount(rightSums[1][at]);
            }
        }
        return -1;
    }

    private static long[][] sums(long[] deltas) {
        int n = 1 << deltas.length;
        Long[] order = new Long[n];
        long[] sums = new long[n];
        for (int mask = 0; mask < n; mask++) {
            long sum = 0;
            for (int i = 0; i < deltas.length; i++) {
                if ((mask & 1 << i) != 0) {
                    sum += deltas[i];
                }
            }
            sums[mask] = sum;
            order[mask] = (long) mask;
        }
        Arrays.sort(order, Comparator.comparingLong(mask -> sums[(int) (long) mask]));
        long[] sortedSums = new long[n];
        long[] masks = new long[n];
        for (int i = 0; i < n; i++) {
            masks[i] = order[i];
            sortedSums[i] = sums[(int) masks[i]];
        }
        return new long[][] {sortedSums, masks};
    }

    /** The first read outside its bounds, described; null when every read is within them. */
    private static String readProblem(List<Add> adds, List<Read> reads, Reads promise) {
        for (Read read : reads) {
            long lower = 0;
            long upper = 0;
            for (Add add : adds) {
                boolean certain = add.outcome == Outcome.OK
                        && add.completedAt < read.invokedAt()
                        && (promise == Reads.LINEARIZABLE || add.session.equals(read.session()));
                boolean possible = add.outcome != Outcome.FAILED && add.invokedAt < read.completedAt();
                if (add.delta > 0) {
                    lower += certain ? add.delta : 0;
                    upper += possible ? add.delta : 0;
                } else {
                    lower += possible ? add.delta : 0;
                    upper += certain ? add.delta : 0;
                }
            }
            if (read.value() < lower || read.value() > upper) {
                return "a read returned " + read.value() + ", outside [" + lower + ", " + upper + "]: what was"
                        + " acknowledged before it began and what was attempted before it ended";
            }
        }
        return null;
    }

    /** Checks every counter of the history against its final value, as {@code finalValue} reads it. */
    public static List<Result> checkAll(History history, ToLongFunction<String> finalValue) {
        return checkAll(history, finalValue, Reads.LINEARIZABLE);
    }

    /** As {@link #checkAll(History, java.util.function.ToLongFunction)}, with reads held to {@code reads}. */
    public static List<Result> checkAll(History history, ToLongFunction<String> finalValue, Reads reads) {
        return history.counters().stream()
                .map(counter -> check(history, counter, finalValue.applyAsLong(counter), reads))
                .toList();
    }
}
