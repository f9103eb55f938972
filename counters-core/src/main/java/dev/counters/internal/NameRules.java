package dev.counters.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Chooses a value by name, the way configuration does for counters and sequences: an exact name wins, then the
 * first pattern declared that matches ({@code *} any run of characters, {@code ?} one), then the fallback.
 *
 * @param <T> what is chosen
 */
public final class NameRules<T> {

    private record Route<T>(Pattern pattern, T value) {}

    private final Map<String, T> exact;
    private final List<Route<T>> patterns;
    private final T fallback;

    private NameRules(Map<String, T> exact, List<Route<T>> patterns, T fallback) {
        this.exact = exact;
        this.patterns = patterns;
        this.fallback = fallback;
    }

    /** Rules from names and patterns, in declaration order, with a value for every other name. */
    public static <T> NameRules<T> of(Map<String, T> rules, T fallback) {
        Map<String, T> exact = new LinkedHashMap<>();
        List<Route<T>> patterns = new ArrayList<>();
        rules.forEach((nameOrPattern, value) -> {
            if (NamePattern.isPattern(nameOrPattern)) {
                patterns.add(new Route<>(NamePattern.compile(nameOrPattern), value));
            } else {
                exact.put(nameOrPattern, value);
            }
        });
        return new NameRules<>(Map.copyOf(exact), List.copyOf(patterns), Objects.requireNonNull(fallback));
    }

    /**
     * Adds a rule to {@code rules} after checking it: a valid name or pattern, given once.
     *
     * @param what what the rule sets, for the error message ("A strategy")
     */
    public static <T> void add(Map<String, T> rules, String nameOrPattern, T value, String what) {
        NamePattern.validate(nameOrPattern);
        Objects.requireNonNull(value, "value");
        if (rules.putIfAbsent(nameOrPattern, value) != null) {
            throw new IllegalArgumentException(what + " is already set for '" + nameOrPattern + "'");
        }
    }

    /** The value for {@code name}. */
    public T select(String name) {
        T value = exact.get(name);
        if (value != null) {
            return value;
        }
        for (Route<T> route : patterns) {
            if (route.pattern().matcher(name).matches()) {
                return route.value();
            }
        }
        return fallback;
    }
}
