package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/**
 * The service's background threads: virtual when the application enabled them ({@code spring.threads.virtual.enabled})
 * and the JVM has them (Java 21+), as Boot's own executors do; named daemon platform threads otherwise, and on Java 17
 * whatever the property says. Job 1 of the CI matrix checks the Java 17 side, job 2 the Java 25 side.
 */
class VirtualThreadsTest {

    private static final boolean JAVA_21 = Runtime.version().feature() >= 21;

    @Test
    void virtualThreadsWhenEnabledAndTheJvmHasThem() throws Exception {
        Thread thread = newThread(new MockEnvironment().withProperty("spring.threads.virtual.enabled", "true"));
        assertThat(isVirtual(thread))
                .as("virtual on Java " + Runtime.version().feature())
                .isEqualTo(JAVA_21);
        assertThat(thread.isDaemon()).isTrue();
    }

    @Test
    void namedDaemonPlatformThreadsOtherwise() throws Exception {
        Thread thread = newThread(new MockEnvironment());
        assertThat(isVirtual(thread)).isFalse();
        assertThat(thread.isDaemon()).isTrue();
        assertThat(thread.getName()).startsWith("counters-");
    }

    private static Thread newThread(MockEnvironment environment) {
        ThreadFactory factory = CountersAutoConfiguration.threadFactory(environment);
        return factory.newThread(() -> {});
    }

    /** Thread.isVirtual() is Java 21's: called reflectively, false where it does not exist. */
    private static boolean isVirtual(Thread thread) throws Exception {
        try {
            return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
