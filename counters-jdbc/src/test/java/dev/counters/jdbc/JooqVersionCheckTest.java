package dev.counters.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.testing.ChildJvm;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A store is built only on a jOOQ the library runs on: in a child JVM, the test class path as it is (the jOOQ of the
 * matrix job: 3.19 or 3.21) counts; with jOOQ 3.18 in its place (the jar the build copies to target/jooq-versions),
 * building the store fails with a message that names the version found and those supported.
 */
class JooqVersionCheckTest {

    private static final Path UNSUPPORTED = Path.of("target", "jooq-versions", "jooq-3.18.38.jar");

    @Test
    void theJooqOfTheBuildCounts() throws Exception {
        String printed = ChildJvm.start(Map.of(), ChildJooqVersionCheck.class).awaitSuccess(60, TimeUnit.SECONDS);
        assertThat(printed).contains("COUNTED 2");
    }

    @Test
    void anUnsupportedJooqFailsWhenTheStoreIsBuiltNamingTheVersions() throws Exception {
        assertThat(UNSUPPORTED).as("copied by maven-dependency-plugin").exists();
        List<String> classPath = ChildJvm.classPathReplacing("jooq", UNSUPPORTED);

        ChildJvm child = ChildJvm.start(classPath, Map.of(), ChildJooqVersionCheck.class);
        assertThat(child.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        String printed = child.output();
        assertThat(child.process().exitValue()).as(printed).isEqualTo(3);
        assertThat(printed)
                .contains("FAILED jOOQ 3.18.38 is on the class path, but counters runs on jOOQ 3.19, 3.20,"
                        + " 3.21 only")
                .contains("FOUND 3.18.38")
                .doesNotContain("COUNTED");
    }
}
