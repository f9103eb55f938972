package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The README's DDL, which applications that manage their own schema run, is every migration for an empty prefix. */
class ReadmeDdlTest {

    @ParameterizedTest
    @CsvSource({"-- MySQL / MariaDB, mysql", "-- PostgreSQL and H2, standard"})
    void theReadmesDdlIsEveryMigrationWithAnEmptyPrefix(String heading, String folder) throws IOException {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"));
        int start = readme.indexOf(heading);
        assertThat(start).as("the README's DDL block " + heading).isNotNegative();
        String ddl = readme.subList(start + 1, readme.subList(start, readme.size()).indexOf("```") + start).stream()
                .filter(line -> !line.isBlank()).collect(Collectors.joining("\n"));

        String migrations;
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/dev/counters/jdbc/migration", folder))) {
            migrations = files.sorted(Comparator.comparingInt(ReadmeDdlTest::version)).flatMap(file -> {
                try {
                    return Files.readAllLines(file).stream();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }).filter(line -> !line.isBlank()).map(line -> line.replace("${prefix}", ""))
                    .collect(Collectors.joining("\n"));
        }
        assertThat(ddl).isEqualTo(migrations);
    }

    /** A migration's version: 5 for {@code V5__idempotency_keys.sql}. */
    private static int version(Path migration) {
        String name = migration.getFileName().toString();
        return Integer.parseInt(name.substring(1, name.indexOf("__")));
    }
}
