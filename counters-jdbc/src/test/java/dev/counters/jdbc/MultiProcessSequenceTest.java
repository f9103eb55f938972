package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.jdbc.testing.JooqStores;
import dev.counters.jdbc.testing.TestDatabase;
import dev.counters.testing.ChildJvm;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Several JVM processes draw from one sequence on MariaDB at once, and one is killed with SIGKILL and replaced:
 * no number is ever handed out twice, each thread's numbers strictly increase, and the database round trips are
 * about numbers / block size.
 */
class MultiProcessSequenceTest {

    private static final TestDatabase DATABASE = TestDatabase.MARIADB;
    private static final int THREADS = 8;
    private static final int BLOCK = 1_000;

    private static ChildJvm draw(JooqStores stores, String sequence, int perThread, Path out) throws IOException {
        return ChildJvm.start(
                ChildSequenceDrawer.class,
                DATABASE.jdbcUrl(),
                DATABASE.user(),
                DATABASE.password(),
                stores.prefix(),
                sequence,
                String.valueOf(THREADS),
                String.valueOf(perThread),
                String.valueOf(BLOCK),
                out.toString());
    }

    @Test
    void fourProcessesOfEightThreadsNeverShareANumber() throws Exception {
        JooqStores stores = JooqStores.shared(DATABASE);
        String sequence = "orders" + System.nanoTime();
        Path out = Files.createTempDirectory("counters-sequence-");
        int perThread = 100_000;
        List<ChildJvm> children = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            children.add(draw(stores, sequence, perThread, out));
        }
        long roundTrips = 0;
        for (ChildJvm child : children) {
            Matcher printed = Pattern.compile("RESERVATIONS (\\d+)").matcher(child.awaitSuccess(5, TimeUnit.MINUTES));
            assertThat(printed.find()).isTrue();
            roundTrips += Long.parseLong(printed.group(1));
        }
        long numbers = 4L * THREADS * perThread;
        assertThat(checkUniqueAndIncreasing(out)).isEqualTo(numbers);
        // One round trip per block, plus at most a prefetched block per process left unused at the end.
        assertThat(roundTrips).isBetween(numbers / BLOCK, numbers / BLOCK + 4 * 2);
        System.out.printf("%d numbers from 4 processes x %d threads, %d round trips%n", numbers, THREADS, roundTrips);
    }

    @Test
    void aKilledProcessAndItsReplacementNeverShareANumber() throws Exception {
        JooqStores stores = JooqStores.shared(DATABASE);
        String sequence = "invoices" + System.nanoTime();
        Path out = Files.createTempDirectory("counters-sequence-");
        ChildJvm steady = draw(stores, sequence, 50_000, out);
        ChildJvm doomed = draw(stores, sequence, 10_000_000, out);
        doomed.awaitOutput("READY", 2, TimeUnit.MINUTES);
        String doomedFiles = doomed.process().pid() + "-";
        await().atMost(Duration.ofMinutes(2)).until(() -> written(out, doomedFiles) > 100_000);
        doomed.process().destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL mid-block
        ChildJvm replacement = draw(stores, sequence, 50_000, out);
        steady.awaitSuccess(5, TimeUnit.MINUTES);
        replacement.awaitSuccess(5, TimeUnit.MINUTES);
        assertThat(checkUniqueAndIncreasing(out)).isGreaterThan(2L * THREADS * 50_000);
    }

    /** How many bytes the process's threads have written so far. */
    private static long written(Path directory, String filePrefix) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            long bytes = 0;
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith(filePrefix))
                    .toList()) {
                bytes += Files.size(file);
            }
            return bytes;
        }
    }

    /** Reads every thread's file; returns how many numbers there were, failing on a duplicate or a decrease. */
    private static long checkUniqueAndIncreasing(Path directory) throws IOException {
        List<long[]> perThread = new ArrayList<>();
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.toList()) {
                perThread.add(read(file));
            }
        }
        long total = perThread.stream().mapToLong(values -> values.length).sum();
        long[] all = new long[Math.toIntExact(total)];
        int at = 0;
        for (long[] values : perThread) {
            for (int i = 1; i < values.length; i++) {
                assertThat(values[i]).as("numbers of one thread increase").isGreaterThan(values[i - 1]);
            }
            System.arraycopy(values, 0, all, at, values.length);
            at += values.length;
        }
        Arrays.sort(all);
        for (int i = 1; i < all.length; i++) {
            assertThat(all[i]).as("no number is handed out twice").isNotEqualTo(all[i - 1]);
        }
        return total;
    }

    private static long[] read(Path file) throws IOException {
        long[] values = new long[Math.toIntExact(Files.size(file) / Long.BYTES)];
        try (InputStream raw = Files.newInputStream(file);
                DataInputStream in = new DataInputStream(new BufferedInputStream(raw, 1 << 16))) {
            for (int i = 0; i < values.length; i++) {
                values[i] = in.readLong();
            }
        } catch (EOFException e) {
            // a killed process may leave a partly written number at the end
        }
        return values;
    }
}
