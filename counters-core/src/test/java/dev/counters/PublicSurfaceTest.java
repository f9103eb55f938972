package dev.counters;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module exports the API and SPI packages only, and they hold no more public types than the library means to
 * support. Read from the compiled classes, so a type made public by accident fails here.
 */
class PublicSurfaceTest {

    private static final Path CLASSES = Path.of("target", "classes");

    @Test
    void theModuleExportsTheApiAndSpiButNotTheInternalPackage() throws IOException {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(CLASSES.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        assertThat(module.name()).isEqualTo("dev.counters.core");
        assertThat(module.exports().stream().map(ModuleDescriptor.Exports::source))
                .containsExactlyInAnyOrder("dev.counters", "dev.counters.memory", "dev.counters.observation",
                        "dev.counters.sequence", "dev.counters.spi", "dev.counters.strategy");
        assertThat(Files.exists(CLASSES.resolve("dev/counters/internal/StrategyContext.class")))
                .as("the internal package exists, and stays unexported").isTrue();
    }

    @Test
    void theExportedPackagesHoldAtMostThirtyNinePublicTypes() throws Exception {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(CLASSES.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        Set<String> exported = module.exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
        List<String> publicTypes;
        try (Stream<Path> files = Files.walk(CLASSES)) {
            publicTypes = files.map(file -> CLASSES.relativize(file).toString())
                    .filter(name -> name.endsWith(".class") && !name.contains("$") && !name.contains("-info"))
                    .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
                    .filter(name -> exported.contains(name.substring(0, name.lastIndexOf('.'))))
                    .filter(PublicSurfaceTest::isPublic)
                    .sorted()
                    .toList();
        }
        assertThat(publicTypes).as("public top-level types in exported packages").hasSizeLessThanOrEqualTo(39) // 36, and the observations' context and conventions
                .contains("dev.counters.CounterService", "dev.counters.spi.CounterStore");
    }

    private static boolean isPublic(String className) {
        try {
            return Modifier.isPublic(Class.forName(className, false, PublicSurfaceTest.class.getClassLoader())
                    .getModifiers());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
