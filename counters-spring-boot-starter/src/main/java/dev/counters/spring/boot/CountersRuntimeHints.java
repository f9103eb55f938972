package dev.counters.spring.boot;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a native image needs beyond what Boot's AOT processing finds: the library's SQL migrations, which its own
 * Flyway loads from the classpath, and the endpoint's answers, which Jackson writes by reflection.
 */
final class CountersRuntimeHints implements RuntimeHintsRegistrar {

    /** The migrations of every dialect ({@code dev.counters.jdbc.SchemaMigrations}). */
    static final String MIGRATIONS = "dev/counters/jdbc/migration/*/*.sql";

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern(MIGRATIONS);
        new BindingReflectionHintsRegistrar()
                .registerReflectionHints(
                        hints.reflection(),
                        CountersEndpoint.CountersDescriptor.class,
                        CountersEndpoint.CounterDescriptor.class,
                        CountersEndpoint.RuleDescriptor.class,
                        CountersEndpoint.WindowDescriptor.class,
                        CountersEndpoint.BoundedDescriptor.class,
                        CountersEndpoint.RoomDescriptor.class,
                        CountersEndpoint.LimiterDescriptor.class,
                        CountersEndpoint.KeyDescriptor.class,
                        CountersEndpoint.MembersDescriptor.class);
    }
}
