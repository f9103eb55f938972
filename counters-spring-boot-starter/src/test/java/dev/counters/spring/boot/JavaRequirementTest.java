package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.CounterService;
import dev.counters.jdbc.JooqCounterStore;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jooq.DSLContext;
import org.junit.jupiter.api.Test;

/**
 * What the README's Compatibility section tells users holds: the library's classes, and those of jOOQ's open-source
 * edition it is built on, are Java 21 class files (major version 65), so an application needs Java 21 or newer. On
 * Java 17 its build fails with the message the README quotes. If jOOQ or the build ever targets an older Java, this
 * fails, and the README must change with it.
 */
class JavaRequirementTest {

    private static final int JAVA_21 = 65;

    @Test
    void theLibraryAndJooqAreJava21ClassFiles() throws IOException {
        for (Class<?> type : List.of(CounterService.class, JooqCounterStore.class, CountersAutoConfiguration.class,
                DSLContext.class)) {
            assertThat(majorVersion(type)).as(type.getName()).isEqualTo(JAVA_21);
        }
    }

    @Test
    void theReadmeSaysSoAndQuotesWhatJava17Answers() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme).contains("| Java | 21 or newer")
                .contains("class file has wrong version " + JAVA_21 + ".0, should be 61.0");
    }

    private static int majorVersion(Class<?> type) throws IOException {
        try (InputStream in = type.getResourceAsStream(type.getSimpleName() + ".class");
                DataInputStream data = new DataInputStream(in)) {
            data.readInt(); // 0xCAFEBABE
            data.readUnsignedShort(); // minor version
            return data.readUnsignedShort();
        }
    }
}
