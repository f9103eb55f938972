package dev.counters.jdbc.reliability;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import dev.counters.sequence.Sequence;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import dev.counters.spi.Failovers;
import dev.counters.strategy.MonotonicSettings;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * What the asynchronous failover tests draw: numbers of a block sequence and values of a monotonic counter, each time
 * through new services on the store (a cold start, as an application node that starts or restarts would make), so
 * that every value comes from what the database holds, not from a block or a cache kept in this JVM.
 */
final class FailoverDraws {

    static final String SEQUENCE = "order-ids";
    static final String COUNTER = "ids.orders";
    /** Blocks of 10: a few values drawn make a few reservations, each a committed row the failover can lose. */
    static final SequenceSettings BLOCKS =
            SequenceSettings.defaults().withBlockSize(10).withMaxBlockSize(10);

    private FailoverDraws() {}

    /** Numbers and values drawn, in the order handed out. */
    record Drawn(List<Long> numbers, List<Long> values) {

        Drawn plus(Drawn later) {
            List<Long> numbers = new ArrayList<>(this.numbers);
            numbers.addAll(later.numbers);
            List<Long> values = new ArrayList<>(this.values);
            values.addAll(later.values);
            return new Drawn(numbers, values);
        }

        /** The sequence numbers of {@code later} that were handed out here already. */
        TreeSet<Long> repeatedNumbers(Drawn later) {
            TreeSet<Long> repeated = new TreeSet<>(numbers);
            repeated.retainAll(later.numbers);
            return repeated;
        }

        /** The monotonic values of {@code later} that were handed out here already. */
        TreeSet<Long> repeatedValues(Drawn later) {
            TreeSet<Long> repeated = new TreeSet<>(values);
            repeated.retainAll(later.values);
            return repeated;
        }
    }

    /** Draws {@code count} sequence numbers and {@code count} monotonic values through new services on {@code store}. */
    static Drawn draw(JooqCounterStore store, int count) {
        List<Long> numbers = new ArrayList<>();
        List<Long> values = new ArrayList<>();
        try (SequenceService sequences =
                        SequenceService.builder(store).defaultSettings(BLOCKS).build();
                CounterService counters = CounterService.builder(store)
                        .defaultStrategy(MonotonicSettings.defaults())
                        .build()) {
            Sequence sequence = sequences.sequence(SEQUENCE);
            for (int i = 0; i < count; i++) {
                numbers.add(sequence.next());
                values.add(counters.incrementAndGet(COUNTER, 1));
            }
        }
        return new Drawn(numbers, values);
    }

    /** The skips the store counted, if it offers {@link Failovers}. */
    static Optional<Failovers.Skips> skips(JooqCounterStore store) {
        return store.capability(Failovers.class).map(Failovers::skips);
    }

    /**
     * What this JVM writes to standard error while it is open, besides writing it there: slf4j-simple, the tests'
     * logger, writes each line to whatever {@code System.err} is then, so the lines the store logs can be read back.
     */
    static final class StandardError implements AutoCloseable {

        private final PrintStream original = System.err;
        private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

        StandardError() {
            OutputStream both = new OutputStream() {
                @Override
                public void write(int b) {
                    original.write(b);
                    captured.write(b);
                }

                @Override
                public void write(byte[] bytes, int offset, int length) {
                    original.write(bytes, offset, length);
                    captured.write(bytes, offset, length);
                }
            };
            System.setErr(new PrintStream(both, true, StandardCharsets.UTF_8));
        }

        /** The WARN lines written so far that name the sequence or the counter drawn. */
        List<String> warnings() {
            List<String> found = new ArrayList<>();
            for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
                if (line.contains("WARN") && (line.contains(SEQUENCE) || line.contains(COUNTER))) {
                    found.add(line);
                }
            }
            return found;
        }

        @Override
        public void close() {
            System.setErr(original);
        }
    }
}
