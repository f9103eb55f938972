package dev.counters.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;

/** The hints a native image needs: every migration the library ships, and the endpoint's answers. */
class RuntimeHintsTest {

    private final RuntimeHints hints = new RuntimeHints();

    RuntimeHintsTest() {
        new CountersRuntimeHints().registerHints(hints, getClass().getClassLoader());
    }

    @Test
    void everyMigrationOfEveryDialectIsIncluded() throws Exception {
        List<String> migrations = new ArrayList<>();
        for (Resource resource : new PathMatchingResourcePatternResolver()
                .getResources("classpath*:dev/counters/jdbc/migration/**/*.sql")) {
            String url = resource.getURL().toString();
            migrations.add(url.substring(url.indexOf("dev/counters/jdbc/migration/")));
        }
        assertThat(migrations)
                .hasSizeGreaterThanOrEqualTo(8)
                .anyMatch(path -> path.contains("/mysql/"))
                .anyMatch(path -> path.contains("/standard/"));
        for (String migration : migrations) {
            assertThat(RuntimeHintsPredicates.resource().forResource(migration))
                    .as(migration)
                    .accepts(hints);
        }
    }

    @Test
    void theEndpointsAnswersCanBeWrittenByReflection() {
        for (Class<?> type : List.of(
                CountersEndpoint.CountersDescriptor.class,
                CountersEndpoint.CounterDescriptor.class,
                CountersEndpoint.RuleDescriptor.class,
                CountersEndpoint.WindowDescriptor.class)) {
            assertThat(RuntimeHintsPredicates.reflection().onType(type))
                    .as(type.getName())
                    .accepts(hints);
        }
    }

    @Test
    void theAutoConfigurationRegistersThem() {
        assertThat(CountersAutoConfiguration.class
                        .getAnnotation(ImportRuntimeHints.class)
                        .value())
                .contains(CountersRuntimeHints.class);
    }
}
