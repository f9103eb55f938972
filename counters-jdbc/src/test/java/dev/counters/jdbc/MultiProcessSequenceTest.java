package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.counters.CounterName;
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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
 * about numbers / block size. Two processes drawing after a change of the database's history skip once between them.
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

    @Test
    void twoProcessesDrawingAfterAChangeOfHistorySkipOnceAndNeverShareANumber() throws Exception {
        JooqStores stores = JooqStores.shared(DATABASE);
        String sequence = "tickets" + System.nanoTime();
        stores.store().reserve(CounterName.of(sequence), 1, 1, 1, Long.MAX_VALUE - 1); // next is 2
        execute(
                stores,
                "update " + stores.prefix() + "counter_sequences set history = 'an-earlier-history'"
                        + " where sequence_name = '" + sequence + "'");
        Path out = Files.createTempDirectory("counters-sequence-");
        List<ChildJvm> children = List.of(draw(stores, sequence, 2_000, out), draw(stores, sequence, 2_000, out));
        long reservations = 0;
        for (ChildJvm child : children) {
            Matcher printed = Pattern.compile("RESERVATIONS (\\d+)").matcher(child.awaitSuccess(5, TimeUnit.MINUTES));
            assertThat(printed.find()).isTrue();
            reservations += Long.parseLong(printed.group(1));
        }
        assertThat(checkUniqueAndIncreasing(out)).isEqualTo(2L * THREADS * 2_000);
        long skip = 1_000_000; // the store's default
        assertThat(smallest(out)).as("every number past the skip").isGreaterThanOrEqualTo(2 + skip);
        assertThat(execute(
                        stores,
                        "select next_value from " + stores.prefix() + "counter_sequences where" + " sequence_name = '"
                                + sequence + "'"))
                .as("one skip, then blocks of %d", BLOCK)
                .isEqualTo(2 + skip + reservations * BLOCK);
    }

    /** Runs a statement on the test database; a query's first value. */
    private static long execute(JooqStores stores, String sql) throws SQLException {
        try (Connection connection = DATABASE.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            if (!statement.execute(sql)) {
                return statement.getUpdateCount();
            }
            try (ResultSet rows = statement.getResultSet()) {
                assertThat(rows.next()).isTrue();
                return rows.getLong(1);
            }
        }
    }

    private static long smallest(Path directory) throws IOException {
        long smallest = Long.MAX_VALUE;
        try (Stream<Path> files = Files.list(directory)) {
            for (Path file : files.toList()) {
                for (long value : read(file)) {
                    smallest = Math.min(smallest, value);
                }
            }
        }
        return smallest;
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
