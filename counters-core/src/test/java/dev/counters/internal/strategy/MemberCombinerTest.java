package dev.counters.internal.strategy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.CountersException;
import dev.counters.TransientStoreException;
import dev.counters.spi.Members.MemberChange;
import dev.counters.testing.TestThreads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The combining of membership changes: one transaction carries every change waiting for the cell, sorted by member in
 * the order they came; each caller gets its own answer; and a caller stuck behind a transaction that does not end
 * gives up at its deadline, saying whether its change was written, may have been, or surely was not.
 */
class MemberCombinerTest {

    private static final CounterName NAME = CounterName.of("likes");

    /**
     * A store's transactions: recorded, the n-th waiting (10 s at most) for the n-th of {@link #gates} if there is
     * one, each answering as a set would.
     */
    private static final class Transactions implements MemberCombiner.Write {

        final List<List<MemberChange>> written = new CopyOnWriteArrayList<>();
        final Set<String> members = ConcurrentHashMap.newKeySet();
        final List<CountDownLatch> gates;

        Transactions(int gated) {
            gates = IntStream.range(0, gated)
                    .mapToObj(i -> new CountDownLatch(1))
                    .toList();
        }

        @Override
        public List<Boolean> apply(List<MemberChange> changes) {
            written.add(changes);
            int index = written.size() - 1;
            try {
                if (index < gates.size()) {
                    gates.get(index).await(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            List<Boolean> changed = new ArrayList<>();
            for (MemberChange change : changes) {
                changed.add(change.add() ? members.add(change.member()) : members.remove(change.member()));
            }
            return changed;
        }
    }

    private static Thread apply(MemberCombiner combiner, MemberChange change, Map<MemberChange, Object> outcomes) {
        return TestThreads.start(() -> {
            try {
                outcomes.put(change, combiner.apply(change));
            } catch (RuntimeException e) {
                outcomes.put(change, e);
            }
        });
    }

    private static void awaitWaiting(List<Thread> threads) {
        await().atMost(Duration.ofSeconds(10))
                .until(() -> threads.stream().allMatch(thread -> thread.getState() == Thread.State.TIMED_WAITING));
    }

    @Test
    void theChangesWaitingForACellShareOneTransactionSortedByMemberInTheirOrder() throws InterruptedException {
        Transactions transactions = new Transactions(1);
        MemberCombiner combiner = new MemberCombiner(NAME, transactions, Duration.ofSeconds(30));
        Map<MemberChange, Object> outcomes = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        threads.add(apply(combiner, new MemberChange("first", true), outcomes));
        await().atMost(Duration.ofSeconds(10)).until(() -> transactions.written.size() == 1);
        List<MemberChange> queued = List.of(
                new MemberChange("carol", true),
                new MemberChange("alice", true),
                new MemberChange("carol", false),
                new MemberChange("bob", false));
        for (MemberChange change : queued) {
            threads.add(apply(combiner, change, outcomes));
            awaitWaiting(threads); // in this order
        }
        transactions.gates.get(0).countDown();
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        assertThat(transactions.written).hasSize(2);
        assertThat(transactions.written.get(1))
                .containsExactly(
                        new MemberChange("alice", true),
                        new MemberChange("bob", false),
                        new MemberChange("carol", true),
                        new MemberChange("carol", false));
        assertThat(outcomes)
                .containsEntry(new MemberChange("first", true), true)
                .containsEntry(new MemberChange("alice", true), true)
                .containsEntry(new MemberChange("bob", false), false)
                .containsEntry(new MemberChange("carol", true), true)
                .containsEntry(new MemberChange("carol", false), true);
    }

    @Test
    void aBatchTakesAtMostItsLimitAndTheWriterWritesOnUntilItsOwnIsDone() throws InterruptedException {
        Transactions transactions = new Transactions(1);
        MemberCombiner combiner = new MemberCombiner(NAME, transactions, Duration.ofSeconds(30));
        Map<MemberChange, Object> outcomes = new ConcurrentHashMap<>();
        List<Thread> threads = new ArrayList<>();
        threads.add(apply(combiner, new MemberChange("first", true), outcomes));
        await().atMost(Duration.ofSeconds(10)).until(() -> transactions.written.size() == 1);
        int waiting = MemberCombiner.MAX_BATCH + 10;
        IntStream.range(0, waiting)
                .forEach(i -> threads.add(apply(combiner, new MemberChange("m" + i, true), outcomes)));
        awaitWaiting(threads.subList(1, threads.size()));
        transactions.gates.get(0).countDown();
        for (Thread thread : threads) {
            thread.join(10_000);
        }
        assertThat(transactions.written.stream().map(List::size)).containsExactly(1, MemberCombiner.MAX_BATCH, 10);
        assertThat(outcomes)
                .hasSize(waiting + 1)
                .allSatisfy((change, outcome) -> assertThat(outcome).isEqualTo(true));
    }

    @Test
    void aCallerStuckBehindATransactionGivesUpAtItsDeadlineSayingWhatItKnows() throws InterruptedException {
        Transactions transactions = new Transactions(2);
        MemberCombiner combiner = new MemberCombiner(NAME, transactions, Duration.ofSeconds(1));
        Map<MemberChange, Object> outcomes = new ConcurrentHashMap<>();
        MemberChange stuck = new MemberChange("stuck", true);
        Thread writer = apply(combiner, stuck, outcomes);
        await().atMost(Duration.ofSeconds(10)).until(() -> transactions.written.size() == 1);

        // Queued behind it, never taken: withdrawn at its deadline, and never written.
        MemberChange queued = new MemberChange("queued", true);
        Thread waiter = apply(combiner, queued, outcomes);
        waiter.join(10_000);
        assertThat(outcomes.get(queued))
                .isInstanceOf(TransientStoreException.class)
                .satisfies(e ->
                        assertThat(((CountersException) e).mayHaveBeenApplied()).isFalse());
        assertThat((Throwable) outcomes.get(queued)).hasMessageContaining("was not written");

        // The writer's transaction ends; the next one takes two waiting changes and does not end in time.
        List<Thread> next = new ArrayList<>();
        MemberChange a = new MemberChange("a", true);
        MemberChange b = new MemberChange("b", true);
        next.add(apply(combiner, a, outcomes));
        next.add(apply(combiner, b, outcomes));
        awaitWaiting(next);
        transactions.gates.get(0).countDown();
        writer.join(10_000);
        assertThat(outcomes.get(stuck)).isEqualTo(true);
        // One of a and b writes, and waits at the gate; the other waits for it, and gives up not knowing.
        await().atMost(Duration.ofSeconds(10)).until(() -> outcomes.containsKey(a) || outcomes.containsKey(b));
        Object gaveUp = outcomes.containsKey(a) ? outcomes.get(a) : outcomes.get(b);
        assertThat(gaveUp).isInstanceOf(CounterStoreException.class).isNotInstanceOf(TransientStoreException.class);
        assertThat((Throwable) gaveUp).hasMessageContaining("outcome is unknown");
        transactions.gates.get(1).countDown();
        for (Thread thread : next) {
            thread.join(10_000);
        }
        assertThat(transactions.written).hasSize(2);
        assertThat(transactions.written.get(1)).containsExactly(a, b);
        assertThat(transactions.members).containsExactlyInAnyOrder("stuck", "a", "b");
    }
}
