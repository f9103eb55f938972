package dev.counters.internal.strategy;

import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.TransientStoreException;
import dev.counters.spi.Members.MemberChange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Folds the concurrent membership changes of one cell of a counter in this JVM into one transaction
 * ({@link dev.counters.spi.Members#changeMembers}), as {@link Combiner} folds increments: the first caller to find
 * the cell free writes every change queued meanwhile (up to {@link #MAX_BATCH}); each caller returns once the
 * transaction carrying its change has committed, with its own answer, or fails with it. A write sorts its changes by
 * member (stably, so that two changes of one member keep their order), so that every writer of every process locks
 * member rows in one order.
 *
 * <p>A waiting caller gives up after its timeout: a change no write has taken is withdrawn and fails as not written
 * ({@link TransientStoreException}); one a write has taken fails as unknown ({@link CounterStoreException}).
 */
final class MemberCombiner extends FlatCombining<MemberCombiner.Change> {

    /** At most this many changes per transaction: its statements and its locks stay small. */
    static final int MAX_BATCH = 256;

    private static final Comparator<Change> BY_MEMBER = Comparator.comparing(change -> change.change.member());

    /** The transaction of a batch: per change, in order, whether it changed membership. */
    @FunctionalInterface
    interface Write {
        List<Boolean> apply(List<MemberChange> changes);
    }

    private final CounterName name;
    private final Write write;
    private final Duration timeout;

    MemberCombiner(CounterName name, Write write, Duration timeout) {
        this.name = name;
        this.write = write;
        this.timeout = timeout;
    }

    /** Applies {@code change} through a combined transaction; whether it changed membership. */
    boolean apply(MemberChange change) {
        Change mine = new Change(change);
        if (!await(mine, timeout.toNanos())) {
            if (mine.claim()) { // before any write took it: withdrawn
                queue.remove(mine);
                throw new TransientStoreException(
                        "The change of member '" + change.member() + "' of counter '" + name + "' was not written: the"
                                + " transaction before it in this process did not end within " + timeout,
                        null);
            }
            if (!mine.done) {
                throw new CounterStoreException(
                        "The change of member '" + change.member() + "' of counter '" + name + "' is being written,"
                                + " and its transaction did not end within " + timeout + "; its outcome is unknown",
                        null);
            }
        }
        mine.rethrowFailure();
        return mine.changed;
    }

    @Override
    void writeBatch() {
        List<Change> batch = new ArrayList<>();
        for (Change next; batch.size() < MAX_BATCH && (next = queue.poll()) != null; ) {
            if (next.claim()) { // else its caller withdrew it
                batch.add(next);
            }
        }
        if (batch.isEmpty()) {
            return;
        }
        batch.sort(BY_MEMBER);
        try {
            List<Boolean> changed =
                    write.apply(batch.stream().map(waiting -> waiting.change).toList());
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).complete(changed.get(i));
            }
        } catch (RuntimeException | Error e) {
            batch.forEach(waiting -> waiting.fail(e));
        }
    }

    static final class Change extends FlatCombining.Waiter {

        final MemberChange change;
        /** Set once: by the write that takes the change, or by its caller withdrawing it. */
        private final AtomicBoolean claimed = new AtomicBoolean();

        boolean changed;

        Change(MemberChange change) {
            this.change = change;
        }

        boolean claim() {
            return claimed.compareAndSet(false, true);
        }

        void complete(boolean changed) {
            this.changed = changed;
            finish();
        }
    }
}
