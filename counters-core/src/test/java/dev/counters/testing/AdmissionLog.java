package dev.counters.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A process's record of its admitted decisions, each as the wall-clock span (epoch microseconds) from just before the
 * call to just after it returned: the decision was made somewhere inside. The records live in a memory-mapped file, so
 * a process killed with {@code kill -9} leaves every record it finished; one it was writing has no end yet and is not
 * read. Every process on the machine reads the same wall clock, so the spans of several processes can be compared.
 */
public final class AdmissionLog {

    /** An admitted decision: made between {@code start} and {@code end}, epoch microseconds. */
    public record Admission(long start, long end) {}

    private static final int RECORD = 2 * Long.BYTES;

    private final MappedByteBuffer records;
    private final int capacity;
    private final AtomicInteger next = new AtomicInteger();

    private AdmissionLog(MappedByteBuffer records, int capacity) {
        this.records = records;
        this.capacity = capacity;
    }

    /** A new log of room for {@code capacity} admissions in {@code file} (sparse: unused room takes no disk). */
    public static AdmissionLog create(Path file, int capacity) {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return new AdmissionLog(channel.map(FileChannel.MapMode.READ_WRITE, 0, (long) capacity * RECORD), capacity);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Now on the wall clock, in epoch microseconds. */
    public static long micros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
    }

    /**
     * Records an admission that started at {@code start} ({@link #micros()} before the call) and returned now.
     *
     * @throws IllegalStateException when the log is full: the run admitted more than it was sized for
     */
    public void admitted(long start) {
        long end = micros();
        int at = next.getAndIncrement();
        if (at >= capacity) {
            throw new IllegalStateException("the admission log is full: " + capacity + " admissions");
        }
        // The start first: a record is complete once its end is written.
        records.putLong(at * RECORD, start);
        records.putLong(at * RECORD + Long.BYTES, end);
    }

    /** How many admissions this process recorded. */
    public int count() {
        return Math.min(next.get(), capacity);
    }

    /** The complete records of a log file, in any order. */
    public static List<Admission> read(Path file) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
        List<Admission> admissions = new ArrayList<>();
        for (int at = 0; at + RECORD <= bytes.limit(); at += RECORD) {
            long start = bytes.getLong(at);
            long end = bytes.getLong(at + Long.BYTES);
            if (start != 0 && end != 0) {
                admissions.add(new Admission(start, end));
            }
        }
        return admissions;
    }
}
