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
import org.junit.jupiter.api.Test;

/**
 * What the README's Compatibility section tells users holds: the library's classes are Java 17 class files (major
 * version 61), Spring Boot 4's baseline, so an application on Java 17 can compile against them. If the build ever
 * targets a newer Java, this fails, and the README must change with it.
 */
class JavaRequirementTest {

    private static final int JAVA_17 = 61;

    @Test
    void theLibraryIsJava17ClassFiles() throws IOException {
        for (Class<?> type : List.of(CounterService.class, JooqCounterStore.class, CountersAutoConfiguration.class)) {
            assertThat(majorVersion(type)).as(type.getName()).isEqualTo(JAVA_17);
        }
    }

    @Test
    void theReadmeSaysSo() throws IOException {
        String readme = Files.readString(Path.of("..", "README.md"));
        assertThat(readme).contains("| Java | 17 or newer");
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
