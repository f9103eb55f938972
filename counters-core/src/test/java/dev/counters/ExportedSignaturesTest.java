package dev.counters;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.NullMarked;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The module exports the API and SPI packages only; no exported type names an internal one, in its signatures or its
 * supertypes; and the exported packages hold the types listed here, so a type made public by accident fails. Read
 * from the compiled classes.
 */
class ExportedSignaturesTest {

    private static final Path CLASSES = Path.of("target", "classes");

    @Test
    void theModuleExportsTheApiAndSpiButNotTheInternalPackage() throws IOException {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(CLASSES.resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        assertThat(module.name()).isEqualTo("dev.counters.core");
        assertThat(module.exports().stream().map(ModuleDescriptor.Exports::source))
                .containsExactlyInAnyOrder(
                        "dev.counters",
                        "dev.counters.memory",
                        "dev.counters.observation",
                        "dev.counters.sequence",
                        "dev.counters.spi",
                        "dev.counters.strategy");
        assertThat(Stream.of(
                                "internal/Time",
                                "internal/service/DefaultCounterService",
                                "internal/strategy/StrategyContext",
                                "internal/strategy/buffered/BufferedStrategy")
                        .map(type -> CLASSES.resolve("dev/counters/" + type + ".class")))
                .as("the internal packages exist, and stay unexported")
                .allMatch(Files::exists);
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
        Set<String> exported =
                module.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
        List<String> publicTypes;
        try (Stream<Path> files = Files.walk(CLASSES)) {
            publicTypes = files.map(file -> CLASSES.relativize(file).toString())
                    .filter(name -> name.endsWith(".class") && !name.contains("-info"))
                    .map(name ->
                            name.substring(0, name.length() - ".class".length()).replace('/', '.'))
                    .filter(name -> exported.contains(name.substring(0, name.lastIndexOf('.'))))
                    .filter(ExportedSignaturesTest::isExported)
                    .sorted()
                    .toList();
        }
        assertThat(publicTypes)
                .as("public types in exported packages")
                .containsExactly(
                        "dev.counters.BoundedCounter",
                        "dev.counters.BoundedIncrement",
                        "dev.counters.BoundedState",
                        "dev.counters.BoundedState$Allowance",
                        "dev.counters.BufferFullException",
                        "dev.counters.CacheUnavailableException",
                        "dev.counters.Counter",
                        "dev.counters.CounterAdmin",
                        "dev.counters.CounterBoundException",
                        "dev.counters.CounterContentionException",
                        "dev.counters.CounterName",
                        "dev.counters.CounterOverflowException",
                        "dev.counters.CounterRule",
                        "dev.counters.CounterService",
                        "dev.counters.CounterServiceBuilder",
                        "dev.counters.CounterStoreException",
                        "dev.counters.CountersException",
                        "dev.counters.Hold",
                        "dev.counters.HoldStatus",
                        "dev.counters.IdempotencyKey",
                        "dev.counters.IdempotencyKeyReusedException",
                        "dev.counters.MembershipCounter",
                        "dev.counters.NodeIdInUseException",
                        "dev.counters.RateDecision",
                        "dev.counters.RateDecision$Outcome",
                        "dev.counters.RateLimit",
                        "dev.counters.RateLimit$Algorithm",
                        "dev.counters.RateLimit$CalendarUnit",
                        "dev.counters.RateLimitRule",
                        "dev.counters.RateLimitRule$OnStoreFailure",
                        "dev.counters.RateLimiter",
                        "dev.counters.SequenceExhaustedException",
                        "dev.counters.StoreUnavailableException",
                        "dev.counters.StrategyStatistics",
                        "dev.counters.StrategyStatistics$Activity",
                        "dev.counters.StrategyStatistics$BufferActivity",
                        "dev.counters.StrategyStatistics$EscrowActivity",
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
                        "dev.counters.spi.Escrow",
                        "dev.counters.spi.Escrow$Bounds",
                        "dev.counters.spi.Escrow$EscrowCell",
                        "dev.counters.spi.Escrow$EscrowState",
                        "dev.counters.spi.Escrow$NodeAllowance",
                        "dev.counters.spi.Failovers",
                        "dev.counters.spi.Failovers$Durability",
                        "dev.counters.spi.Failovers$Replication",
                        "dev.counters.spi.Failovers$Skips",
                        "dev.counters.spi.Holds",
                        "dev.counters.spi.Holds$KeyedOperation",
                        "dev.counters.spi.Holds$OperationState",
                        "dev.counters.spi.IdempotencyKeys",
                        "dev.counters.spi.IdempotencyKeys$KeyedDelta",
                        "dev.counters.spi.IdempotencyKeys$KeyedIncrement",
                        "dev.counters.spi.IdempotencyKeys$KeyedWrite",
                        "dev.counters.spi.IdempotentBatches",
                        "dev.counters.spi.IdempotentBatches$AppliedBatch",
                        "dev.counters.spi.IdleCounters",
                        "dev.counters.spi.Leases",
                        "dev.counters.spi.Maxima",
                        "dev.counters.spi.Members",
                        "dev.counters.spi.Members$MemberChange",
                        "dev.counters.spi.MonotonicCache",
                        "dev.counters.spi.MonotonicCache$Added",
                        "dev.counters.spi.RateLimits",
                        "dev.counters.spi.RateLimits$Gcra",
                        "dev.counters.spi.Sequences",
                        "dev.counters.spi.SessionLocks",
                        "dev.counters.spi.SessionLocks$SessionLock",
                        "dev.counters.spi.ShardCounts",
                        "dev.counters.spi.TotalCache",
                        "dev.counters.strategy.AtomicSettings",
                        "dev.counters.strategy.BoundedSettings",
                        "dev.counters.strategy.BufferedSettings",
                        "dev.counters.strategy.BufferedSettings$WhenFull",
                        "dev.counters.strategy.CacheChoice",
                        "dev.counters.strategy.DeltaLogSettings",
                        "dev.counters.strategy.MonotonicSettings",
                        "dev.counters.strategy.NodeSettings",
                        "dev.counters.strategy.OptimisticSettings",
                        "dev.counters.strategy.ShardedSettings",
                        "dev.counters.strategy.ShardedSettings$Selection",
                        "dev.counters.strategy.StrategySettings",
                        "dev.counters.strategy.StrategySettings$Visitor");
    }

    /**
     * An exported type that names an internal one (a parameter, a return type, a supertype, a record component) would
     * make the internal type part of the API. Walks every public and protected member of every exported type.
     */
    @Test
    void noExportedTypeNamesATypeOfAnUnexportedPackage() throws Exception {
        Set<String> exported = exportedPackages();
        List<String> leaks = new ArrayList<>();
        for (String className : classNames()) {
            Class<?> type = Class.forName(className, false, getClass().getClassLoader());
            if (!exported.contains(type.getPackageName()) || !isExported(className)) {
                continue;
            }
            Signatures signatures = new Signatures(exported, leaks);
            signatures.check(type.getName() + " extends", type.getGenericSuperclass());
            for (Type supertype : type.getGenericInterfaces()) {
                signatures.check(type.getName() + " implements", supertype);
            }
            Class<?>[] permitted = type.getPermittedSubclasses();
            for (Class<?> subtype : permitted == null ? new Class<?>[0] : permitted) {
                signatures.check(type.getName() + " permits", subtype);
            }
            for (TypeVariable<?> variable : type.getTypeParameters()) {
                signatures.check(type.getName() + "<" + variable + ">", variable);
            }
            for (Method method : type.getDeclaredMethods()) {
                if (visible(method.getModifiers()) && !method.isSynthetic()) {
                    signatures.check(method.toGenericString(), method);
                }
            }
            for (Constructor<?> constructor : type.getDeclaredConstructors()) {
                if (visible(constructor.getModifiers()) && !constructor.isSynthetic()) {
                    signatures.check(constructor.toGenericString(), constructor);
                }
            }
            for (Field field : type.getDeclaredFields()) {
                if (visible(field.getModifiers()) && !field.isSynthetic()) {
                    signatures.check(field.toGenericString(), field.getGenericType());
                }
            }
        }
        assertThat(leaks)
                .as("exported signatures that name a type of an unexported package, or a type that is not" + " public")
                .isEmpty();
    }

    /** NullAway checks the packages marked {@code @NullMarked}: a package without its marker would go unchecked. */
    @Test
    void everyPackageIsNullMarked() throws IOException {
        Set<String> packages = new TreeSet<>();
        for (String className : classNames()) {
            packages.add(className.substring(0, className.lastIndexOf('.')));
        }
        assertThat(packages).as("packages of counters-core").contains("dev.counters", "dev.counters.internal.strategy");
        assertThat(packages.stream().filter(name -> {
                    try {
                        return !Class.forName(
                                        name + ".package-info",
                                        false,
                                        getClass().getClassLoader())
                                .isAnnotationPresent(NullMarked.class);
                    } catch (ClassNotFoundException e) {
                        return true;
                    }
                }))
                .as("packages without a @NullMarked package-info.java")
                .isEmpty();
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static Set<String> exportedPackages() throws IOException {
        try (InputStream in = Files.newInputStream(CLASSES.resolve("module-info.class"))) {
            return ModuleDescriptor.read(in).exports().stream()
                    .map(ModuleDescriptor.Exports::source)
                    .collect(Collectors.toSet());
        }
    }

    private static List<String> classNames() throws IOException {
        try (Stream<Path> files = Files.walk(CLASSES)) {
            return files.map(file -> CLASSES.relativize(file).toString())
                    .filter(name -> name.endsWith(".class") && !name.contains("-info"))
                    .map(name ->
                            name.substring(0, name.length() - ".class".length()).replace('/', '.'))
                    .sorted()
                    .toList();
        }
    }

    /** Walks types, generic ones included, and records each library type that is not exported. */
    private record Signatures(Set<String> exported, List<String> leaks, Set<Type> seen) {

        Signatures(Set<String> exported, List<String> leaks) {
            this(exported, leaks, new HashSet<>());
        }

        void check(String where, Executable executable) {
            check(where, executable instanceof Method method ? method.getGenericReturnType() : null);
            for (Type parameter : executable.getGenericParameterTypes()) {
                check(where, parameter);
            }
            for (Type thrown : executable.getGenericExceptionTypes()) {
                check(where, thrown);
            }
            for (TypeVariable<?> variable : executable.getTypeParameters()) {
                check(where, variable);
            }
        }

        void check(String where, @Nullable Type type) {
            if (type == null || !seen.add(type)) {
                return;
            }
            if (type instanceof Class<?> raw) {
                while (raw.isArray()) {
                    raw = raw.getComponentType();
                }
                if (!raw.isPrimitive()
                        && raw.getPackageName().startsWith("dev.counters")
                        && (!exported.contains(raw.getPackageName()) || !isExported(raw.getName()))) {
                    leaks.add(where + " names " + raw.getName());
                }
            } else if (type instanceof ParameterizedType parameterized) {
                check(where, parameterized.getRawType());
                check(where, parameterized.getOwnerType());
                for (Type argument : parameterized.getActualTypeArguments()) {
                    check(where, argument);
                }
            } else if (type instanceof WildcardType wildcard) {
                for (Type bound : wildcard.getUpperBounds()) {
                    check(where, bound);
                }
                for (Type bound : wildcard.getLowerBounds()) {
                    check(where, bound);
                }
            } else if (type instanceof GenericArrayType array) {
                check(where, array.getGenericComponentType());
            } else if (type instanceof TypeVariable<?> variable) {
                for (Type bound : variable.getBounds()) {
                    check(where, bound);
                }
            }
        }
    }

    /** Public, and so is every class it is nested in; anonymous and local classes are not. */
    private static boolean isExported(String className) {
        try {
            Class<?> type = Class.forName(className, false, ExportedSignaturesTest.class.getClassLoader());
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
