package dev.counters.spring.boot;

import dev.counters.jdbc.UnsupportedJooqVersionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Startup failed because the application overrode jOOQ's version to one counters does not run on. */
final class UnsupportedJooqVersionFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedJooqVersionException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedJooqVersionException cause) {
        return new FailureAnalysis(
                "counters found jOOQ " + cause.found() + " on the class path, but runs on jOOQ "
                        + String.join(", ", cause.supported()) + " only (tested: 3.19 under Spring Boot 4.0, 3.21 under"
                        + " Spring Boot 4.1).",
                "Use the jOOQ version your Spring Boot manages: remove the jooq.version property (or the version on"
                        + " org.jooq:jooq) that overrides it. On Java 17 with Spring Boot 4.1, set jooq.version to"
                        + " 3.19.39 (Maven, with spring-boot-starter-parent: <jooq.version>3.19.39</jooq.version>;"
                        + " Gradle: ext['jooq.version'] = '3.19.39').",
                cause);
    }
}
