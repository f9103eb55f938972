package dev.counters.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterBoundException;
import dev.counters.CounterContentionException;
import dev.counters.CounterName;
import dev.counters.CounterStoreException;
import dev.counters.TransientStoreException;
import dev.counters.history.History.Outcome;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The checkers must catch what they are for: each invariant is broken on purpose here. */
class HistoryCheckerTest {

    private final UniqueDeltas deltas = UniqueDeltas.large(new Random(42));

    private static final Runnable APPLIED = () -> {};

    private static Runnable failing(RuntimeException e) {
        return () -> {
            throw e;
        };
    }

    private static final RuntimeException LOST_CONNECTION = new CounterStoreException("link failure", null);

    @Test
    void acknowledgedPlusSomeUnknownDeltasIsValid() {
        History history = new History();
        long applied = 0;
        for (int i = 0; i < 100; i++) {
            long delta = deltas.next();
            boolean unknown = i % 5 == 0;
            history.add("c", delta, unknown ? failing(LOST_CONNECTION) : APPLIED);
            applied += unknown && i % 10 == 0 ? delta : unknown ? 0 : delta; // half the unknown ones committed
        }
        CounterChecker.Result result = CounterChecker.check(history, "c", applied);
        assertThat(result.valid()).as(result.toString()).isTrue();
        assertThat(result.unknown()).isEqualTo(20);
        assertThat(result.unknownApplied()).isEqualTo(10);
    }

    @Test
    void aDeltaAppliedTwiceIsCaught() {
        History history = new History();
        long applied = 0;
        long twice = 0;
        for (int i = 0; i < 100; i++) {
            long delta = deltas.next();
            history.add("c", delta, i % 4 == 0 ? failing(LOST_CONNECTION) : APPLIED);
            applied += delta;
            twice = delta;
        }
        assertThat(CounterChecker.check(history, "c", applied).valid()).isTrue();
        CounterChecker.Result result = CounterChecker.check(history, "c", applied + twice);
        assertThat(result.valid()).isFalse();
        assertThat(result.problem()).contains("not the acknowledged");
    }

    @Test
    void aBoundedHistoryCountsFromItsInitialValueAndRefusalsAreNotApplied() {
        History history = new History();
        history.add("stock", -3, APPLIED);
        history.read("stock", () -> 7);
        history.add("stock", -8, failing(new CounterBoundException(CounterName.of("stock"), -8, 0, 7, 0)));
        history.add("stock", -7, APPLIED);
        CounterChecker.Result result = CounterChecker.checkBounded(history, "stock", 0, 10, 0L, null);
        assertThat(result.valid()).as(result.toString()).isTrue();
        assertThat(result.failed()).isEqualTo(1);
        assertThat(CounterChecker.checkBounded(history, "stock", -8, 10, 0L, null)
                        .valid())
                .as("a refusal applied")
                .isFalse();
    }

    @Test
    void aBoundedHistoryThatDipsBelowItsMinimumIsCaught() {
        History history = new History();
        history.add("stock", -12, APPLIED); // an oversell: the store let it through
        history.read("stock", () -> -2);
        history.add("stock", 2, APPLIED);
        assertThat(CounterChecker.checkBounded(history, "stock", 0, 10, null, null)
                        .valid())
                .as("counted exactly, as an unbounded counter")
                .isTrue();
        CounterChecker.Result result = CounterChecker.checkBounded(history, "stock", 0, 10, 0L, 10L);
        assertThat(result.valid()).isFalse();
        assertThat(result.problem()).contains("-2", "outside the bounds [0, 10]");
        assertThat(CounterChecker.checkBounded(history, "stock", 0, 10, -5L, 10L)
                        .valid())
                .isTrue();
    }

    @Test
    void aLostAcknowledgedDeltaIsCaught() {
        History history = new History();
        long applied = 0;
        long last = 0;
        for (int i = 0; i < 50; i++) {
            last = deltas.next();
            history.add("c", last, i % 3 == 0 ? failing(LOST_CONNECTION) : APPLIED);
            applied += i % 3 == 0 ? 0 : last;
        }
        assertThat(CounterChecker.check(history, "c", applied - last).valid()).isFalse();
    }

    @Test
    void aFailedDeltaThatWasAppliedIsCaught() {
        History history = new History();
        long failed = deltas.next();
        history.add("c", deltas.next(), APPLIED);
        assertThat(history.add("c", failed, failing(new TransientStoreException("deadlock", null))))
                .isEqualTo(Outcome.FAILED);
        long acknowledged = CounterChecker.check(history, "c", 0).acknowledged();
        CounterChecker.Result result = CounterChecker.check(history, "c", acknowledged + failed);
        assertThat(result.valid()).isFalse();
        assertThat(result.problem()).contains("reported as not applied");
    }

    /** A caller reads the library's signal: any exception whose mayHaveBeenApplied() is false is "not applied". */
    @Test
    void aFailureIsFailedExactlyWhenTheLibrarySaysNotApplied() {
        assertThat(Outcome.of(new TransientStoreException("deadlock", null))).isEqualTo(Outcome.FAILED);
        assertThat(Outcome.of(new CounterContentionException(CounterName.of("c"), 3)))
                .isEqualTo(Outcome.FAILED);
        assertThat(Outcome.of(new IllegalArgumentException("bad name"))).isEqualTo(Outcome.FAILED);
        assertThat(Outcome.of(LOST_CONNECTION)).isEqualTo(Outcome.UNKNOWN);
        assertThat(Outcome.of(new IllegalStateException("closed"))).isEqualTo(Outcome.UNKNOWN);
    }

    @Test
    void negativeDeltasCount() {
        History history = new History();
        UniqueDeltas signed = UniqueDeltas.between(new Random(7), 1L << 30, 1L << 31, true);
        long applied = 0;
        for (int i = 0; i < 60; i++) {
            long delta = signed.next();
            history.add("c", delta, i % 6 == 0 ? failing(LOST_CONNECTION) : APPLIED);
            applied += i % 12 == 0 ? delta : i % 6 == 0 ? 0 : delta;
        }
        assertThat(CounterChecker.check(history, "c", applied).valid()).isTrue();
        assertThat(CounterChecker.check(history, "c", applied + 1).valid()).isFalse();
    }

    @Test
    void readsMustLieBetweenAcknowledgedAndAttempted() {
        History history = new History();
        history.add("c", 10, APPLIED);
        history.add("c", 5, failing(LOST_CONNECTION));
        assertThat(history.read("c", () -> 10)).isTrue();
        assertThat(history.read("c", () -> 15)).isTrue();
        assertThat(CounterChecker.check(history, "c", 15).valid()).isTrue();

        History stale = new History();
        stale.add("c", 10, APPLIED);
        stale.read("c", () -> 0); // began after the increment was acknowledged: 0 is stale
        CounterChecker.Result result = CounterChecker.check(stale, "c", 10);
        assertThat(result.valid()).isFalse();
        assertThat(result.problem()).contains("outside [10, 10]");

        History future = new History();
        future.read("c", () -> 7); // nothing was attempted yet
        future.add("c", 7, APPLIED);
        assertThat(CounterChecker.check(future, "c", 7).valid()).isFalse();
    }

    @Test
    void readYourWritesHoldsAReadOnlyToItsOwnSessionsAcknowledgements() {
        History history = new History();
        history.add("node-a", "c", 10, APPLIED);
        history.add("node-b", "c", 20, APPLIED);
        history.read("node-a", "c", () -> 10); // node b's 20 is not flushed yet: node a cannot see it
        assertThat(CounterChecker.check(history, "c", 30, CounterChecker.Reads.READ_YOUR_WRITES)
                        .valid())
                .isTrue();
        assertThat(CounterChecker.check(history, "c", 30).valid())
                .as("not linearizable")
                .isFalse();
        history.read("node-b", "c", () -> 10); // but node b must see its own 20
        assertThat(CounterChecker.check(history, "c", 30, CounterChecker.Reads.READ_YOUR_WRITES)
                        .valid())
                .isFalse();
    }

    @Test
    void tooManyUnknownOutcomesOnOneCounterAreReportedNotGuessed() {
        History history = new History();
        for (int i = 0; i <= CounterChecker.MAX_UNKNOWN; i++) {
            history.add("c", deltas.next(), failing(LOST_CONNECTION));
        }
        CounterChecker.Result result = CounterChecker.check(history, "c", 0);
        assertThat(result.valid()).isFalse();
        assertThat(result.problem()).contains("spread the load");
    }

    @Test
    void subsetSearchFindsTheSubsetItsSizeAndNothingElse() {
        long[] values = {3, 9, 27, 81, 243, 729, 2187};
        assertThat(CounterChecker.subsetOfSize(values, 0)).isZero();
        assertThat(CounterChecker.subsetOfSize(values, 3 + 81 + 2187)).isEqualTo(3);
        assertThat(CounterChecker.subsetOfSize(values, 3 + 3)).isEqualTo(-1);
        assertThat(CounterChecker.subsetOfSize(new long[0], 0)).isZero();
        assertThat(CounterChecker.subsetOfSize(new long[0], 1)).isEqualTo(-1);
    }

    @Test
    void sequencesMayNotRepeatANumberNorGoBackForOneCaller() {
        assertThat(SequenceChecker.check(Map.of("a", List.of(1L, 2L, 5L), "b", List.of(3L, 4L, 9L)))
                        .valid())
                .isTrue();
        SequenceChecker.Result duplicate = SequenceChecker.check(Map.of("a", List.of(1L, 2L), "b", List.of(2L)));
        assertThat(duplicate.valid()).isFalse();
        assertThat(duplicate.problem()).contains("number 2 was handed out to");
        SequenceChecker.Result backwards = SequenceChecker.check(Map.of("a", List.of(1L, 3L, 2L)));
        assertThat(backwards.valid()).isFalse();
        assertThat(backwards.problem()).contains("received 2 after 3");
    }
}
