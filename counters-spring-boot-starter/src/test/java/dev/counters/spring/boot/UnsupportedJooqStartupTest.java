package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.testing.ChildJvm;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * An application that overrides jOOQ's version to one counters does not run on fails at startup, and Boot's report
 * names the version found, those supported and the property to set; with the jOOQ of the build it starts. Each in a
 * child JVM, the unsupported one with jOOQ 3.18 (the jar the build copies to target/jooq-versions) in place of the
 * build's.
 */
class UnsupportedJooqStartupTest {

    private static final Path UNSUPPORTED = Path.of("target", "jooq-versions", "jooq-3.18.38.jar");

    @Test
    void startsOnTheJooqOfTheBuild() throws Exception {
        assertThat(ChildJvm.start(Map.of(), ChildApplication.class).awaitSuccess(120, TimeUnit.SECONDS))
                .contains("STARTED");
    }

    @Test
    void failsToStartOnAnUnsupportedJooqNamingTheVersions() throws Exception {
        ChildJvm child =
                ChildJvm.start(ChildJvm.classPathReplacing("jooq", UNSUPPORTED), Map.of(), ChildApplication.class);
        assertThat(child.process().waitFor(120, TimeUnit.SECONDS)).isTrue();
        String output = child.output();
        assertThat(child.process().exitValue()).as(output).isNotZero();
        assertThat(output)
                .contains("APPLICATION FAILED TO START")
                .contains("counters found jOOQ 3.18.38 on the class path, but runs on jOOQ 3.19, 3.20, 3.21 only")
                .contains("<jooq.version>3.19.39</jooq.version>")
                .doesNotContain("STARTED");
    }
}
