package dev.counters.jdbc;

import dev.counters.CountersException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The jOOQ on the class path is not one the library runs on: an application overrode the version its Spring Boot (or
 * its own build) manages. Thrown when a {@link JooqCounterStore} is built, before anything is written.
 */
public class UnsupportedJooqVersionException extends CountersException {

    private static final long serialVersionUID = 1L;

    /** The jOOQ lines (major.minor) the library runs on: 3.19 (Spring Boot 4.0, Java 17+) to 3.21 (Spring Boot 4.1). */
    static final List<String> SUPPORTED = List.of("3.19", "3.20", "3.21");

    private final String found;

    UnsupportedJooqVersionException(String found) {
        super(
                "jOOQ " + found + " is on the class path, but counters runs on jOOQ " + String.join(", ", SUPPORTED)
                        + " only (tested: 3.19 and 3.21, the versions Spring Boot 4.0 and 4.1 manage). Remove the override"
                        + " of jOOQ's version (jooq.version), or set it to a 3.19.x release on Java 17",
                null);
        this.found = found;
    }

    /** The jOOQ version found on the class path, as jOOQ reports it ({@code 3.18.38}), or {@code unknown}. */
    public String found() {
        return found;
    }

    /** The jOOQ lines the library runs on, as {@code major.minor}. */
    public Set<String> supported() {
        return new TreeSet<>(SUPPORTED);
    }

    /** Fails unless the jOOQ that was loaded is of a supported line. */
    static void check() {
        String found = loadedVersion();
        if (SUPPORTED.stream().noneMatch(line -> found.startsWith(line + "."))) {
            throw new UnsupportedJooqVersionException(found);
        }
    }

    /**
     * Read reflectively: {@code Constants.VERSION} is a compile-time constant, which javac would copy in as the version
     * the library was compiled against.
     */
    private static String loadedVersion() {
        try {
            return String.valueOf(
                    Class.forName("org.jooq.Constants").getField("VERSION").get(null));
        } catch (ReflectiveOperationException | LinkageError e) {
            return "unknown";
        }
    }
}
