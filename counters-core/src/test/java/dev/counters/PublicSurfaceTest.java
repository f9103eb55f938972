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
        assertThat(Stream.of("internal/Time", "internal/service/DefaultCounterService",
                        "internal/strategy/StrategyContext", "internal/strategy/buffered/BufferedStrategy")
                .map(type -> CLASSES.resolve("dev/counters/" + type + ".class")))
                .as("the internal packages exist, and stay unexported").allMatch(Files::exists);
    }

    /**
     * Every public type of the exported packages, nested ones included (a public type nested in a public type is
     * exported as well): adding one is a deliberate edit of this list, not a raised number.
     */
    @Test
    void theExportedPackagesHoldExactlyTheseTypes() throws Exception {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(CLASSES.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        Set<String> exported = module.exports().stream().map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toSet());
        List<String> publicTypes;
        try (Stream<Path> files = Files.walk(CLASSES)) {
            publicTypes = files.map(file -> CLASSES.relativize(file).toString())
                    .filter(name -> name.endsWith(".class") && !name.contains("-info"))
                    .map(name -> name.substring(0, name.length() - ".class".length()).replace('/', '.'))
                    .filter(name -> exported.contains(name.substring(0, name.lastIndexOf('.'))))
                    .filter(PublicSurfaceTest::isExported)
                    .sorted()
                    .toList();
        }
        assertThat(publicTypes).as("public types in exported packages").containsExactly(
                "dev.counters.BufferFullException",
                "dev.counters.CacheUnavailableException",
                "dev.counters.Counter",
                "dev.counters.CounterAdmin",
                "dev.counters.CounterContentionException",
                "dev.counters.CounterName",
                "dev.counters.CounterOverflowException",
                "dev.counters.CounterService",
                "dev.counters.CounterServiceBuilder",
                "dev.counters.CounterStoreException",
                "dev.counters.CountersException",
                "dev.counters.IdempotencyKey",
                "dev.counters.IdempotencyKeyReusedException",
                "dev.counters.NodeIdInUseException",
                "dev.counters.SequenceExhaustedException",
                "dev.counters.StoreUnavailableException",
                "dev.counters.StrategyStatistics",
                "dev.counters.StrategyStatistics$Activity",
                "dev.counters.StrategyStatistics$BufferActivity",
                "dev.counters.TransientStoreException",
                "dev.counters.WindowSettings",
                "dev.counters.WindowedCounter",
                "dev.counters.WindowedCounter$Window",
                "dev.counters.memory.InMemoryCounterStore",
                "dev.counters.observation.CountersObservationContext",
                "dev.counters.observation.CountersObservationContext$Operation",
                "dev.counters.observation.CountersObservationConvention",
                "dev.counters.observation.DefaultCountersObservationConvention",
                "dev.counters.sequence.Reservation",
                "dev.counters.sequence.Sequence",
                "dev.counters.sequence.SequenceService",
                "dev.counters.sequence.SequenceServiceBuilder",
                "dev.counters.sequence.SequenceSettings",
                "dev.counters.sequence.SequenceSettings$Mode",
                "dev.counters.spi.CounterStore",
                "dev.counters.spi.CounterStore$VersionedValue",
                "dev.counters.spi.DatabaseClock",
                "dev.counters.spi.DeltaLog",
                "dev.counters.spi.IdempotencyKeys",
                "dev.counters.spi.IdempotencyKeys$KeyedDelta",
                "dev.counters.spi.IdempotencyKeys$KeyedIncrement",
                "dev.counters.spi.IdempotencyKeys$KeyedWrite",
                "dev.counters.spi.IdempotentBatches",
                "dev.counters.spi.IdempotentBatches$AppliedBatch",
                "dev.counters.spi.IdleCounters",
                "dev.counters.spi.Leases",
                "dev.counters.spi.Maxima",
                "dev.counters.spi.MonotonicCache",
                "dev.counters.spi.MonotonicCache$Added",
                "dev.counters.spi.Sequences",
                "dev.counters.spi.SessionLocks",
                "dev.counters.spi.SessionLocks$SessionLock",
                "dev.counters.spi.ShardCounts",
                "dev.counters.spi.TotalCache",
                "dev.counters.strategy.BufferedSettings",
                "dev.counters.strategy.BufferedSettings$WhenFull",
                "dev.counters.strategy.DeltaLogSettings",
                "dev.counters.strategy.MonotonicSettings",
                "dev.counters.strategy.NodeSettings",
                "dev.counters.strategy.OptimisticSettings",
                "dev.counters.strategy.ShardedSettings",
                "dev.counters.strategy.ShardedSettings$Selection",
                "dev.counters.strategy.Strategies",
                "dev.counters.strategy.StrategyFactory");
    }

    /** Public, and so is every class it is nested in; anonymous and local classes are not. */
    private static boolean isExported(String className) {
        try {
            Class<?> type = Class.forName(className, false, PublicSurfaceTest.class.getClassLoader());
            if (type.isAnonymousClass() || type.isLocalClass()) {
                return false;
            }
            for (Class<?> enclosing = type; enclosing != null; enclosing = enclosing.getEnclosingClass()) {
                if (!Modifier.isPublic(enclosing.getModifiers())) {
                    return false;
                }
            }
            return true;
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
