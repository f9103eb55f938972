package dev.counters.testing;

import dev.counters.testing.AdmissionLog.Admission;
import java.util.Comparator;
import java.util.List;

/**
 * Checks a history of admissions against a limiter's bound. A decision is known only to lie within its span (from
 * before the call to after it returned), so an admission counts toward a stretch of time only when its whole span lies
 * inside: the counts are what the limiter certainly admitted there, never more, and a count over the bound is proof of
 * over-admission, whatever the latencies.
 *
 * <p>A limiter decides on its process's own reading of the database's clock, which may be off the machine's wall clock
 * (on which the spans are logged) by up to half the round trip it was read over. Each span is widened by a
 * {@code toleranceMicros} that covers that error, so that the counts hold on the clock the limiter decided on.
 */
public final class Admissions {

    /**
     * The tolerance for limiters deciding on the database's clock: 50 ms, far above a round trip to a database on the
     * same machine, even a busy one (a process reads the database's clock when its service starts and every 10 s).
     */
    public static final long CLOCK_TOLERANCE_MICROS = 50_000;

    private Admissions() {}

    /**
     * The most admissions whose spans all lie within one half-open stretch of {@code periodMicros}, wherever it starts:
     * GCRA admits at most {@code permits + burst - 1} there.
     */
    public static long mostInAnyPeriod(List<Admission> admissions, long periodMicros, long toleranceMicros) {
        List<Admission> byStart = widened(admissions, toleranceMicros).stream()
                .sorted(Comparator.comparingLong(Admission::start))
                .toList();
        long[] ends = byStart.stream().mapToLong(Admission::end).sorted().toArray();
        // A stretch holding the most can start at some admission's start. Going from the latest start back, a Fenwick
        // tree over the ends counts the admissions started since that end before the stretch does: n log n.
        int[] tree = new int[ends.length + 1];
        long most = 0;
        for (int i = byStart.size() - 1; i >= 0; i--) {
            for (int at = lowerBound(ends, byStart.get(i).end()) + 1; at < tree.length; at += at & -at) {
                tree[at]++;
            }
            long inside = 0;
            for (int at = lowerBound(ends, byStart.get(i).start() + periodMicros); at > 0; at -= at & -at) {
                inside += tree[at];
            }
            most = Math.max(most, inside);
        }
        return most;
    }

    /** How many of the sorted {@code values} are below {@code value}. */
    private static int lowerBound(long[] values, long value) {
        int low = 0;
        int high = values.length;
        while (low < high) {
            int middle = (low + high) >>> 1;
            if (values[middle] < value) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        return low;
    }

    /**
     * The most admissions whose spans lie within one window {@code [k * windowMicros, (k + 1) * windowMicros)} of the
     * epoch: a fixed window admits at most its permits there.
     */
    public static long mostInAWindow(List<Admission> admissions, long windowMicros, long toleranceMicros) {
        java.util.Map<Long, Long> perWindow = new java.util.HashMap<>();
        for (Admission admission : widened(admissions, toleranceMicros)) {
            long window = Math.floorDiv(admission.start(), windowMicros);
            if (Math.floorDiv(admission.end(), windowMicros) == window) {
                perWindow.merge(window, 1L, Long::sum);
            }
        }
        return perWindow.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    private static List<Admission> widened(List<Admission> admissions, long toleranceMicros) {
        return admissions.stream()
                .map(admission -> new Admission(admission.start() - toleranceMicros, admission.end() + toleranceMicros))
                .toList();
    }
}
