package dev.counters.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.counters.CounterName;
import dev.counters.SequenceExhaustedException;
import dev.counters.sequence.Reservation;
import dev.counters.sequence.Sequence;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.spi.CounterStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** What sequences must do on every store, written once. */
public abstract class SequenceContract extends ContractSupport {

    protected SequenceContract(StoreFixture fixture) {
        super(fixture);
    }

    private String name(String suffix) {
        return prefix() + suffix;
    }

    /** Counts reservations: the database round trips of a sequence. */
    private static final class CountingStore extends ForwardingCounterStore {
        final AtomicInteger reservations = new AtomicInteger();

        CountingStore(CounterStore delegate) {
            super(delegate);
        }

        @Override
        public Reservation reserve(CounterName sequence, long count, long start, long increment, long maxValue) {
            reservations.incrementAndGet();
            return super.reserve(sequence, count, start, increment, maxValue);
        }
    }

    @Test
    void reservationsAreContiguousAndNeverOverlap() {
        CounterName sequence = CounterName.of(name("spi"));
        assertThat(sequences(store()).reserve(sequence, 10, 100, 5, 1_000)).isEqualTo(new Reservation(100, 10, 5));
        assertThat(sequences(anotherStore()).reserve(sequence, 3, 100, 5, 1_000))
                .isEqualTo(new Reservation(150, 3, 5));
        assertThat(sequences(store()).reserve(sequence, 1_000, 100, 5, 200))
                .as("fewer, up to the maximum")
                .isEqualTo(new Reservation(165, 8, 5));
        assertThatThrownBy(() -> sequences(store()).reserve(sequence, 1, 100, 5, 200))
                .isInstanceOf(SequenceExhaustedException.class)
                .hasMessageContaining(sequence.value());
        assertThat(sequences(store())
                        .reserve(CounterName.of(name("spi-new")), 1, 7, 1, 1_000)
                        .first())
                .as("a new one starts")
                .isEqualTo(7);
    }

    @Test
    void concurrentReservationsFromTwoStoresAreDisjoint() {
        CounterName sequence = CounterName.of(name("race"));
        Set<Long> firsts = ConcurrentHashMap.newKeySet();
        Concurrently.run(8, thread -> {
            CounterStore mine = thread % 2 == 0 ? store() : anotherStore();
            for (int i = 0; i < 25; i++) {
                assertThat(firsts.add(retried(() -> sequences(mine).reserve(sequence, 10, 1, 1, Long.MAX_VALUE - 1))
                                .first()))
                        .isTrue();
            }
        });
        assertThat(firsts).hasSize(200);
        assertThat(firsts.stream().mapToLong(Long::longValue).max().orElseThrow())
                .isEqualTo(1_991);
    }

    @Test
    void blockSequenceIsUniqueAndIncreasingPerThreadWithOneRoundTripPerBlock() {
        CountingStore counting = new CountingStore(store());
        int threads = 8;
        int perThread = 20_000;
        List<List<Long>> seen = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            seen.add(new ArrayList<>(perThread));
        }
        try (SequenceService sequences = SequenceService.builder(counting)
                .defaultSettings(SequenceSettings.defaults().withBlockSize(500).withMaxBlockSize(500))
                .build()) {
            Sequence orders = sequences.sequence(name("orders"));
            Concurrently.run(threads, thread -> {
                for (int i = 0; i < perThread; i++) {
                    seen.get(thread).add(orders.next());
                }
            });
        }
        Set<Long> all = new HashSet<>();
        for (List<Long> values : seen) {
            for (int i = 1; i < values.size(); i++) {
                assertThat(values.get(i)).isGreaterThan(values.get(i - 1));
            }
            all.addAll(values);
        }
        assertThat(all).hasSize(threads * perThread);
        // 160,000 numbers in blocks of 500: about 320 round trips (plus a prefetch or so at the end).
        assertThat(counting.reservations.get()).isBetween(threads * perThread / 500, threads * perThread / 500 + 3);
    }

    @Test
    void aRestartedSequenceContinuesAboveEveryNumberHandedOut() {
        String orders = name("restart");
        long highest = 0;
        try (SequenceService first = SequenceService.builder(store()).build()) {
            for (int i = 0; i < 1_500; i++) {
                highest = first.next(orders);
            }
        }
        try (SequenceService restarted = SequenceService.builder(anotherStore()).build()) {
            assertThat(restarted.next(orders)).isGreaterThan(highest);
        }
    }

    @Test
    void manyAtOnceAreConsecutiveAndComeAfterEarlierNumbers() {
        try (SequenceService sequences = SequenceService.builder(store())
                .sequence(
                        name("stepped"),
                        SequenceSettings.defaults().withStart(1_000).withIncrement(10))
                .build()) {
            Sequence stepped = sequences.sequence(name("stepped"));
            long before = stepped.next();
            assertThat(before).isEqualTo(1_000);
            Reservation range = stepped.next(50);
            assertThat(range.count()).isEqualTo(50);
            assertThat(range.first()).isGreaterThan(before);
            assertThat(range.last()).isEqualTo(range.first() + 49 * 10);
            assertThat(stepped.next()).isGreaterThan(range.last());
        }
    }

    @Test
    void gaplessNumbersAreConsecutive() {
        String invoices = name("invoices");
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        try (SequenceService sequences = SequenceService.builder(store())
                .sequence(name("invoices"), SequenceSettings.gapless())
                .build()) {
            Concurrently.run(4, thread -> {
                for (int i = 0; i < 100; i++) {
                    assertThat(seen.add(sequences.next(invoices))).isTrue();
                }
            });
            assertThat(seen)
                    .containsExactlyInAnyOrderElementsOf(
                            LongStream.rangeClosed(1, 400).boxed().toList());
            assertThat(sequences.next(invoices, 3)).isEqualTo(new Reservation(401, 3, 1));
        }
    }

    @Test
    void anExhaustedSequenceSaysSoAndNeverWraps() {
        try (SequenceService sequences = SequenceService.builder(store())
                .defaultSettings(SequenceSettings.defaults().withBlockSize(4).withMaxValue(10))
                .build()) {
            Sequence small = sequences.sequence(name("small"));
            List<Long> values = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                values.add(small.next());
            }
            assertThat(values).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
            assertThatThrownBy(small::next)
                    .isInstanceOf(SequenceExhaustedException.class)
                    .hasMessageContaining("exhausted")
                    .hasMessageContaining("10");
        }
    }

    @Test
    void badInputIsRefused() {
        assertThatThrownBy(() -> SequenceSettings.defaults().withBlockSize(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("sequence block-size must be >= 1, was 0");
        assertThatThrownBy(() -> SequenceSettings.defaults().withIncrement(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("increment must be >= 1");
        assertThatThrownBy(() -> SequenceSettings.defaults().withStart(100).withMaxValue(10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be above max-value");
        assertThatThrownBy(() -> SequenceSettings.defaults().withMaxValue(Long.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Long.MAX_VALUE - increment");
        try (SequenceService sequences = SequenceService.builder(store()).build()) {
            assertThatThrownBy(() -> sequences.next("bad name"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("Sequence name 'bad name'");
            assertThatThrownBy(() -> sequences.next(null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Sequence name must not be null");
            assertThatThrownBy(() -> sequences.next(name("x"), 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("count must be >= 1");
        }
        assertThatThrownBy(() -> SequenceService.builder(store()).sequence("a/b", SequenceSettings.defaults()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * Issue 31, item 8: starts at 0, below it and at the bottom of the range, in block and gapless mode, through
     * several reservations and a restart: every number in order, none twice, none skipped.
     */
    @Test
    void sequencesStartingAtZeroOrBelowHandOutEveryNumberFromTheStart() {
        for (long start : new long[] {0, -7, Long.MIN_VALUE}) {
            for (SequenceSettings.Mode mode : SequenceSettings.Mode.values()) {
                String sequence = name("low" + mode.ordinal() + (start == 0 ? "z" : start == -7 ? "n" : "m"));
                SequenceSettings settings = SequenceSettings.defaults()
                        .withMode(mode)
                        .withBlockSize(3)
                        .withMaxBlockSize(3)
                        .withStart(start)
                        .withIncrement(2);
                List<Long> seen = new ArrayList<>();
                try (SequenceService sequences = SequenceService.builder(store())
                        .sequence(sequence, settings)
                        .build()) {
                    for (int i = 0; i < 7; i++) {
                        seen.add(sequences.next(sequence));
                    }
                }
                long afterRestart;
                try (SequenceService restarted = SequenceService.builder(anotherStore())
                        .sequence(sequence, settings)
                        .build()) {
                    afterRestart = restarted.next(sequence);
                }
                assertThat(seen)
                        .as(mode + " from " + start)
                        .containsExactlyElementsOf(LongStream.range(0, 7)
                                .map(i -> start + 2 * i)
                                .boxed()
                                .toList());
                if (mode == SequenceSettings.Mode.GAPLESS) {
                    assertThat(afterRestart).isEqualTo(start + 2 * 7);
                } else { // a restart skips the rest of the reserved blocks
                    assertThat(afterRestart).isGreaterThan(start + 2 * 6);
                }
            }
        }
    }
}
