package dev.counters.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.counters.CounterName;
import dev.counters.contract.Concurrently;
import dev.counters.contract.ForwardingCounterStore;
import dev.counters.jdbc.testing.ChildPool;
import dev.counters.sequence.Reservation;
import dev.counters.sequence.Sequence;
import dev.counters.sequence.SequenceService;
import dev.counters.sequence.SequenceSettings;
import java.io.BufferedOutputStream;
import java.io.DataOutputStream;
import java.io.FileOutputStream;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process of the multi-process sequence test: its threads draw numbers from one sequence and write each to a file
 * of their own (8 bytes per number, in the order drawn); then it prints its database round trips.
 * Arguments: jdbcUrl user password tablePrefix sequence threads numbersPerThread blockSize outputDirectory.
 */
public final class ChildSequenceDrawer {

    private ChildSequenceDrawer() {}

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[5]);
        int perThread = Integer.parseInt(args[6]);
        AtomicLong reservations = new AtomicLong();
        try (HikariDataSource dataSource = ChildPool.of(args, threads)) {
            ForwardingCounterStore counting =
                    new ForwardingCounterStore(JooqCounterStore.builder(dataSource)
                            .tablePrefix(args[3])
                            .build()) {
                        @Override
                        public Reservation reserve(
                                CounterName sequence, long count, long start, long increment, long max) {
                            Reservation reserved = super.reserve(sequence, count, start, increment, max);
                            reservations.incrementAndGet(); // round trips that reserved: one rolled back is retried
                            return reserved;
                        }
                    };
            try (SequenceService sequences = SequenceService.builder(counting)
                    .defaultSettings(fixedBlocks(Integer.parseInt(args[7])))
                    .build()) {
                Sequence sequence = sequences.sequence(args[4]);
                System.out.println("READY");
                System.out.flush();
                Concurrently.run(threads, thread -> {
                    Path file = Path.of(args[8], ProcessHandle.current().pid() + "-" + thread + ".bin");
                    try (DataOutputStream out = new DataOutputStream(
                            new BufferedOutputStream(new FileOutputStream(file.toFile()), 1 << 16))) {
                        for (int i = 0; i < perThread; i++) {
                            out.writeLong(sequence.next());
                            if (i % 1_000 == 0) {
                                out.flush();
                            }
                        }
                    }
                });
            }
        }
        System.out.println("RESERVATIONS " + reservations.get());
    }

    /** Blocks of one size, so that the parent can count the round trips the numbers took. */
    private static SequenceSettings fixedBlocks(int size) {
        return SequenceSettings.defaults().withBlockSize(size).withMaxBlockSize(size);
    }
}
