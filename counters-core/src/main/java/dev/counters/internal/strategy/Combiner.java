package dev.counters.internal.strategy;

import dev.counters.CounterOverflowException;
import java.util.ArrayList;
import java.util.List;

/**
 * Folds the concurrent increments of one stored row in this JVM into one write ("Poor man's distributed counter": "a
 * retry carries the updated pending delta", applied to every durable strategy). The first caller to find the row free
 * writes, carrying every delta queued meanwhile; the others wait for the write that carries theirs. Every caller
 * returns only once that write has committed, and learns its own outcome: a failure goes to exactly the callers whose
 * deltas the failed write carried. With one caller at a time nothing waits: the caller writes its own delta at once.
 *
 * <p>A write carries deltas of one sign only, in queue order. The values between the row's total before and after
 * it are then all in range, so each caller can be given the total as if the deltas had been applied one by one: the
 * value after the write minus the deltas queued after its own. When the database refuses a combined delta as out
 * of range, or a write refuses a batch whose members may fit alone ({@link SplitBatch}), each delta is written on its
 * own, so that only the deltas that do not fit are refused.
 */
public final class Combiner extends FlatCombining<Combiner.Pending> {

    /** One write of a batch: the row's total after it (or anything, when no caller needs the total). */
    @FunctionalInterface
    public interface Write {
        long apply(Batch batch);
    }

    /**
     * Thrown by a write whose batch failed as a whole where its members may succeed one by one (a guarded row with
     * room for some of them): the combiner then writes each alone, and a member that fails alone gets this.
     */
    public static class SplitBatch extends RuntimeException {

        private static final long serialVersionUID = 1L;

        protected SplitBatch(String message) {
            super(message, null, false, false); // a refusal, not a fault: no stack trace
        }
    }

    private final Write write;

    public Combiner(Write write) {
        this.write = write;
    }

    /** Adds {@code delta} through a combined write; returns the total after it, as described above. */
    public long submit(long delta, boolean needsTotal) {
        Pending mine = new Pending(delta, needsTotal);
        await(mine, Long.MAX_VALUE);
        mine.rethrowFailure();
        return mine.total;
    }

    @Override
    void writeBatch() {
        Batch batch = new Batch();
        batch.takeQueued(); // at least the writer's own delta, whatever the write does
        try {
            long total = write.apply(batch);
            for (int i = batch.members.size() - 1; i >= 0; i--) {
                Pending pending = batch.members.get(i);
                pending.complete(total);
                total -= pending.delta; // stays in range: every delta of the batch has the same sign
            }
        } catch (CounterOverflowException | SplitBatch e) {
            if (batch.members.size() == 1) {
                batch.members.get(0).fail(e);
            } else {
                batch.members.forEach(this::writeAlone);
            }
        } catch (RuntimeException | Error e) {
            batch.members.forEach(pending -> pending.fail(e));
        }
    }

    private void writeAlone(Pending pending) {
        Batch alone = new Batch(pending);
        try {
            pending.complete(write.apply(alone));
        } catch (RuntimeException | Error e) {
            pending.fail(e);
        }
    }

    /**
     * The deltas one write carries. {@link #takeQueued()} takes every delta queued since its last call (of the batch's
     * sign, within range), so that a write retried after a conflict carries the deltas that arrived meanwhile too.
     */
    public final class Batch {

        private final List<Pending> members = new ArrayList<>();
        private final boolean fixed;
        private long sum;
        private boolean needsTotal;

        private Batch() {
            this.fixed = false;
        }

        private Batch(Pending only) {
            this.fixed = true;
            add(only);
        }

        /**
         * Takes the deltas queued since the last call into the batch, and returns the sum of the deltas to write now.
         * Call it before {@link #needsTotal()}: a delta it takes may want the total.
         */
        public long takeQueued() {
            if (!fixed) {
                for (Pending next; (next = queue.peek()) != null && fits(next); ) {
                    add(queue.poll());
                }
            }
            return sum;
        }

        /** Whether any caller of the batch wants the total back (an {@code addAndGet} rather than an add). */
        boolean needsTotal() {
            return needsTotal;
        }

        public int size() {
            return members.size();
        }

        private boolean fits(Pending next) {
            if (members.isEmpty()) {
                return true;
            }
            boolean sameSign = (next.delta > 0) == (members.get(0).delta > 0);
            long total = sum + next.delta;
            return sameSign && ((sum ^ total) & (next.delta ^ total)) >= 0; // no overflow of the sum
        }

        private void add(Pending pending) {
            members.add(pending);
            sum += pending.delta;
            needsTotal |= pending.needsTotal;
        }
    }

    static final class Pending extends FlatCombining.Waiter {

        final long delta;
        final boolean needsTotal;
        long total;

        Pending(long delta, boolean needsTotal) {
            this.delta = delta;
            this.needsTotal = needsTotal;
        }

        void complete(long total) {
            this.total = total;
            finish();
        }
    }
}
