package dev.counters;

/**
 * The validated name of a counter.
 *
 * <p>Rules, checked once here so that nothing invalid ever reaches a store:
 * <ul>
 *   <li>1 to {@value #MAX_LENGTH} characters;</li>
 *   <li>only ASCII letters and digits and the characters {@code . _ - :}.</li>
 * </ul>
 * Names are case-sensitive on every database ({@code Views} and {@code views} are two counters).
 * A name that breaks a rule is an {@link IllegalArgumentException} whose message names the rule.
 *
 * @param value the name as given
 */
public record CounterName(String value) implements Comparable<CounterName> {

    /** The longest allowed name, in characters. */
    public static final int MAX_LENGTH = 128;

    /** The characters allowed besides ASCII letters and digits. */
    public static final String ALLOWED_PUNCTUATION = "._-:";

    public CounterName {
        validate(value, "Counter name");
    }

    /** Returns the name, or throws {@link IllegalArgumentException} naming the broken rule. */
    public static CounterName of(String value) {
        return new CounterName(value);
    }

    /**
     * Like {@link #of(String)} for a name that is not a counter's, such as a sequence's; {@code what} starts the
     * error message ("Sequence name").
     */
    public static CounterName of(String value, String what) {
        validate(value, what);
        return new CounterName(value);
    }

    /**
     * Checks the name or pattern of a configuration rule: a counter name in which {@code *} stands for any run of
     * characters and {@code ?} for one.
     *
     * @throws IllegalArgumentException naming the rule it breaks
     */
    public static void validatePattern(String nameOrPattern) {
        if (nameOrPattern == null) {
            throw new IllegalArgumentException("Counter name or pattern must not be null");
        }
        validate(nameOrPattern, "Counter name or pattern", "*?");
    }

    /**
     * Checks {@code value} against the naming rules; {@code what} starts the message
     * (for example "Counter name" or "Sequence name").
     */
    static void validate(String value, String what) {
        validate(value, what, "");
    }

    /** As {@link #validate(String, String)}, also allowing the characters in {@code extra}. */
    static void validate(String value, String what, String extra) {
        if (value == null) {
            throw new IllegalArgumentException(what + " must not be null");
        }
        if (value.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    what + " is " + value.length() + " characters long; at most " + MAX_LENGTH + " are allowed");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (!isAllowed(c) && extra.indexOf(c) < 0) {
                throw new IllegalArgumentException(what + " '" + printable(value) + "' contains "
                        + describe(c) + " at index " + i
                        + "; allowed are ASCII letters, digits and " + ALLOWED_PUNCTUATION + extra);
            }
        }
    }

    private static boolean isAllowed(char c) {
        return (c >= 'a' && c <= 'z')
                || (c >= 'A' && c <= 'Z')
                || (c >= '0' && c <= '9')
                || ALLOWED_PUNCTUATION.indexOf(c) >= 0;
    }

    private static String describe(char c) {
        return (c < 0x20 || c > 0x7e) ? String.format("U+%04X", (int) c) : "'" + c + "'";
    }

    /** The name for an error message: control characters escaped, long names shortened. */
    private static String printable(String value) {
        String shown = value.length() > 40 ? value.substring(0, 40) + "..." : value;
        StringBuilder out = new StringBuilder(shown.length());
        shown.codePoints().forEach(cp -> {
            if (cp < 0x20 || cp == 0x7f) {
                out.append(String.format("\\u%04X", cp));
            } else {
                out.appendCodePoint(cp);
            }
        });
        return out.toString();
    }

    @Override
    public int compareTo(CounterName other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }
}
