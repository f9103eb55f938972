package dev.counters.internal;

import dev.counters.CounterName;
import dev.counters.internal.ratelimit.RateWindows;
import java.util.regex.Pattern;

/**
 * Name patterns, as configuration uses them: a name in which {@code *} matches any run of characters and {@code ?}
 * one character.
 */
public final class NamePattern {

    private NamePattern() {}

    /** Whether {@code nameOrPattern} has a wildcard. */
    public static boolean isPattern(String nameOrPattern) {
        return nameOrPattern.indexOf('*') >= 0 || nameOrPattern.indexOf('?') >= 0;
    }

    /** Checks the name or pattern against the naming rules, allowing the wildcards. */
    public static void validate(String nameOrPattern) {
        CounterName.validatePattern(nameOrPattern);
        RateWindows.checkNotReserved(nameOrPattern);
    }

    /** What every name the rule matches starts with: a pattern up to its first wildcard, or the name itself. */
    public static String fixedPart(String nameOrPattern) {
        for (int i = 0; i < nameOrPattern.length(); i++) {
            char c = nameOrPattern.charAt(i);
            if (c == '*' || c == '?') {
                return nameOrPattern.substring(0, i);
            }
        }
        return nameOrPattern;
    }

    /** The regular expression a pattern stands for. */
    public static Pattern compile(String pattern) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString());
    }
}
