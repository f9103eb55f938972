package dev.counters.history;

import dev.counters.CountersException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A record of what clients did and what they were told, for {@link CounterChecker} and {@link SequenceChecker}: each
 * operation is invoked, then completes as {@link Outcome#OK}, {@link Outcome#FAILED} (certainly not applied) or
 * {@link Outcome#UNKNOWN} (maybe applied: the connection broke while its commit was in flight). Events are ordered
 * by one logical clock, so "acknowledged before this read began" is exact, whatever the threads did.
 */
public final class History {

    /** What a client was told about an operation. */
    public enum Outcome {
        OK,
        FAILED,
        UNKNOWN;

        /**
         * The outcome the library promises for a failure, as a caller reads it: what
         * {@link CountersException#mayHaveBeenApplied()} says of the library's exceptions ({@link #FAILED}: "not
         * applied", which a caller may believe and not repeat), {@link #FAILED} for bad input, and {@link #UNKNOWN}
         * for anything else, a lost connection above all.
         */
        public static Outcome of(Throwable failure) {
            if (failure instanceof CountersException e) {
                return e.mayHaveBeenApplied() ? UNKNOWN : FAILED;
            }
            return failure instanceof IllegalArgumentException ? FAILED : UNKNOWN;
        }
    }

    /** An increment of {@code delta}; its outcome and completion tick are set once. */
    public static final class Add {
        final String session;
        final String counter;
        final long delta;
        final long invokedAt;
        volatile long completedAt = Long.MAX_VALUE;
        volatile Outcome outcome = Outcome.UNKNOWN;

        Add(String session, String counter, long delta, long invokedAt) {
            this.session = session;
            this.counter = counter;
            this.delta = delta;
            this.invokedAt = invokedAt;
        }
    }

    /** A read of a counter, with the value returned if it succeeded. */
    record Read(String session, String counter, long invokedAt, long completedAt, long value) {}

    private final LongSupplier ticks;
    private final ConcurrentLinkedQueue<Add> adds = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Read> reads = new ConcurrentLinkedQueue<>();

    /** A history ordered by a logical clock of its own. */
    public History() {
        this(new AtomicLong()::incrementAndGet);
    }

    private History(LongSupplier ticks) {
        this.ticks = ticks;
    }

    /**
     * A history whose events are timed by {@code clock}, so that the histories of several processes can be merged
     * into one ({@link #lines()}, {@link #merge}): a clock they all share, such as {@code System::nanoTime} of
     * processes on one Linux machine (its monotonic clock).
     */
    public static History timedBy(LongSupplier clock) {
        return new History(clock);
    }

    /** Records an increment as it is invoked; complete it with {@link #complete(Add, Outcome)}. */
    public Add invoke(String counter, long delta) {
        return invoke("", counter, delta);
    }

    /** As {@link #invoke(String, long)}, by a client of {@code session} (an application node). */
    public Add invoke(String session, String counter, long delta) {
        Add add = new Add(session, counter, delta, ticks.getAsLong());
        adds.add(add);
        return add;
    }

    public void complete(Add add, Outcome outcome) {
        add.outcome = outcome;
        add.completedAt = ticks.getAsLong();
    }

    /**
     * Runs {@code increment}, recording it: {@link Outcome#OK} if it returns, otherwise as {@link Outcome#of}
     * classifies the exception. Returns the outcome; the exception is not rethrown.
     */
    public Outcome add(String counter, long delta, Runnable increment) {
        return add("", counter, delta, increment);
    }

    /** As {@link #add(String, long, Runnable)}, by a client of {@code session} (an application node). */
    public Outcome add(String session, String counter, long delta, Runnable increment) {
        Add add = invoke(session, counter, delta);
        try {
            increment.run();
            complete(add, Outcome.OK);
        } catch (RuntimeException e) {
            complete(add, Outcome.of(e));
        }
        return add.outcome;
    }

    /**
     * Runs an increment that returns the counter's value after it ({@code incrementAndGet}): recorded as
     * {@link #add(String, String, long, Runnable)} does, and the value it returned as a read made while it ran.
     */
    public Outcome addAndGet(String session, String counter, long delta, LongSupplier incrementAndGet) {
        Add add = invoke(session, counter, delta);
        try {
            long value = incrementAndGet.getAsLong();
            reads.add(new Read(session, counter, add.invokedAt, ticks.getAsLong(), value));
            complete(add, Outcome.OK);
        } catch (RuntimeException e) {
            complete(add, Outcome.of(e));
        }
        return add.outcome;
    }

    /** Runs {@code read}, recording the value it returned; a read that fails is not recorded (it returned nothing). */
    public boolean read(String counter, LongSupplier read) {
        return read("", counter, read);
    }

    /** As {@link #read(String, LongSupplier)}, by a client of {@code session} (an application node). */
    public boolean read(String session, String counter, LongSupplier read) {
        long invokedAt = ticks.getAsLong();
        long value;
        try {
            value = read.getAsLong();
        } catch (RuntimeException e) {
            return false;
        }
        reads.add(new Read(session, counter, invokedAt, ticks.getAsLong(), value));
        return true;
    }

    List<Add> adds(String counter) {
        List<Add> result = new ArrayList<>();
        for (Add add : adds) {
            if (add.counter.equals(counter)) {
                result.add(add);
            }
        }
        return result;
    }

    List<Read> reads(String counter) {
        return reads.stream().filter(read -> read.counter().equals(counter)).toList();
    }

    /** Every counter incremented so far. */
    public List<String> counters() {
        return adds.stream().map(add -> add.counter).distinct().sorted().toList();
    }

    /** How many increments completed with {@code outcome}. */
    public long count(Outcome outcome) {
        return adds.stream()
                .filter(add -> add.outcome == outcome && add.completedAt != Long.MAX_VALUE)
                .count();
    }

    public long reads() {
        return reads.size();
    }

    /**
     * Every operation recorded, one line each, for a history of another process to {@link #merge}; an increment
     * still in flight is written as unknown.
     */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        for (Add add : adds) {
            long completedAt = add.completedAt;
            lines.add(String.join(
                    "\t",
                    "add",
                    add.session,
                    add.counter,
                    Long.toString(add.delta),
                    Long.toString(add.invokedAt),
                    Long.toString(completedAt),
                    (completedAt == Long.MAX_VALUE ? Outcome.UNKNOWN : add.outcome).name()));
        }
        for (Read read : reads) {
            lines.add(String.join(
                    "\t",
                    "read",
                    read.session(),
                    read.counter(),
                    Long.toString(read.invokedAt()),
                    Long.toString(read.completedAt()),
                    Long.toString(read.value())));
        }
        return lines;
    }

    /** Adds the operations of {@link #lines()} of another history timed by the same clock as this one. */
    public void merge(List<String> lines) {
        for (String line : lines) {
            String[] f = line.split("\t");
            if (f[0].equals("add")) {
                Add add = new Add(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]));
                add.outcome = Outcome.valueOf(f[6]);
                add.completedAt = Long.parseLong(f[5]);
                adds.add(add);
            } else {
                reads.add(new Read(f[1], f[2], Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5])));
            }
        }
    }
}
