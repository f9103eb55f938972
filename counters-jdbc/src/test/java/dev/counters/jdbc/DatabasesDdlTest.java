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

/**
 * The DDL of docs/databases.md, which applications that manage their own schema run, is every migration for an empty
 * prefix.
 */
class DatabasesDdlTest {

    @ParameterizedTest
    @CsvSource({"-- MySQL / MariaDB, mysql", "-- PostgreSQL and H2, standard"})
    void theDocumentedDdlIsEveryMigrationWithAnEmptyPrefix(String heading, String folder) throws IOException {
        List<String> page = Files.readAllLines(Path.of("..", "docs", "databases.md"));
        int start = page.indexOf(heading);
        assertThat(start)
                .as("the DDL block " + heading + " of docs/databases.md")
                .isNotNegative();
        String ddl = page.subList(start + 1, page.subList(start, page.size()).indexOf("```") + start).stream()
                .filter(line -> !line.isBlank())
                .collect(Collectors.joining("\n"));

        String migrations;
        try (Stream<Path> files = Files.list(Path.of("src/main/resources/dev/counters/jdbc/migration", folder))) {
            migrations = files.sorted(Comparator.comparingInt(DatabasesDdlTest::version))
                    .flatMap(file -> {
                        try {
                            return Files.readAllLines(file).stream();
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                    })
                    .filter(line -> !line.isBlank())
                    .map(line -> line.replace("${prefix}", ""))
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
