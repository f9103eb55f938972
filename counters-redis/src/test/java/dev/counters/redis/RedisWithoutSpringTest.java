package dev.counters.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.counters.redis.testing.RedisServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Spring Data Redis is optional: the caches load and work through Lettuce in a JVM without any Spring jar (the
 * factories taking a Spring type are named apart from the Lettuce ones, and the Spring client is a class of its own).
 */
class RedisWithoutSpringTest {

    @Test
    void bothCachesWorkWithoutSpringOnTheClassPath() throws Exception {
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String withoutSpring = Arrays.stream(classPath.split(File.pathSeparator))
                .filter(entry -> !entry.contains(File.separator + "springframework" + File.separator))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(withoutSpring).isNotEqualTo(classPath);
        Path output = Files.createTempFile("counters-no-spring-", ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        RedisServer redis = RedisServer.shared();
        Process child = new ProcessBuilder(List.of(
                        java, "-cp", withoutSpring, ChildWithoutSpring.class.getName(), String.valueOf(redis.port())))
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            assertThat(child.waitFor(1, TimeUnit.MINUTES)).isTrue();
            String printed = Files.readString(output);
            assertThat(child.exitValue()).as(printed).isZero();
            assertThat(printed).contains("VALUE 42 TOTAL 7");
        } finally {
            child.destroyForcibly();
        }
    }
}
