package dev.counters.jdbc.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Appends one line per scenario and strategy to {@code target/reliability.md}: what ran, how many operations and
 * injected faults, what the checker found. {@code docs/reliability.md} quotes a run of it.
 */
final class ReliabilityReport {

    private static final Path FILE = Path.of("target", "reliability.md");

    private ReliabilityReport() {}

    static synchronized void row(String scenario, String subject, String line) {
        String text = "| " + scenario + " | " + subject + " | " + line + " |\n";
        System.out.print("[reliability] " + text);
        try {
            Files.createDirectories(FILE.getParent());
            Files.writeString(FILE, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
