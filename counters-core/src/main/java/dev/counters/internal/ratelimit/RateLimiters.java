package dev.counters.internal.ratelimit;

import dev.counters.CounterName;

/** The service's rate limiters: one per name, with the limit of its rule or of its first call. */
public final class RateLimiters {

    /** The longest limiter name: its keys' storage names (at most 44 characters) follow it in a window's name. */
    public static final int MAX_NAME = 48;

    private RateLimiters() {}

    /**
     * Checks a limiter's name: a counter name of at most {@value #MAX_NAME} characters, without {@code :}, which
     * separates the name from the keys in the names the limiter stores.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static void checkName(String name) {
        CounterName.of(name, "Rate limiter name");
        checkPattern(name);
    }

    /** Checks a rule's name or pattern of limiters, as {@link #checkName}, allowing the wildcards. */
    public static void checkPattern(String nameOrPattern) {
        CounterName.validatePattern(nameOrPattern);
        if (nameOrPattern.length() > MAX_NAME) {
            throw new IllegalArgumentException("A rate limiter's name is at most " + MAX_NAME + " characters, '"
                    + nameOrPattern + "' has " + nameOrPattern.length());
        }
        if (nameOrPattern.indexOf(':') >= 0) {
            throw new IllegalArgumentException("A rate limiter's name has no ':', '" + nameOrPattern + "' has one");
        }
    }
}
