package dev.counters.history;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks the numbers a sequence handed out: no number acknowledged twice, to any caller, and each caller's numbers
 * strictly increasing. Gaps are allowed (a block lost with a crash, a number whose commit outcome was unknown).
 */
public final class SequenceChecker {

    private SequenceChecker() {}

    /** What the check found. */
    public record Result(boolean valid, String problem, int numbers, int callers) {

        @Override
        public String toString() {
            return (valid ? "valid" : "INVALID, " + problem) + " (" + numbers + " numbers, " + callers + " callers)";
        }
    }

    /** {@code numbersByCaller}: each caller's acknowledged numbers, in the order it received them. */
    public static Result check(Map<String, List<Long>> numbersByCaller) {
        Map<Long, String> owner = new HashMap<>();
        int total = 0;
        for (Map.Entry<String, List<Long>> entry : numbersByCaller.entrySet()) {
            long previous = Long.MIN_VALUE;
            for (long number : entry.getValue()) {
                total++;
                if (number <= previous) {
                    return new Result(
                            false,
                            "caller " + entry.getKey() + " received " + number + " after " + previous,
                            total,
                            numbersByCaller.size());
                }
                previous = number;
                String first = owner.putIfAbsent(number, entry.getKey());
                if (first != null) {
                    return new Result(
                            false,
                            "number " + number + " was handed out to " + first + " and to " + entry.getKey(),
                            total,
                            numbersByCaller.size());
                }
            }
        }
        return new Result(true, "", total, numbersByCaller.size());
    }
}
