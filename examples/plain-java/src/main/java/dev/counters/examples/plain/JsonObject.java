package dev.counters.examples.plain;

import java.util.StringJoiner;

/** Just enough JSON for this API's replies: one flat object of strings and numbers, members in the order added. */
final class JsonObject {

    private final StringJoiner members = new StringJoiner(",", "{", "}");

    JsonObject add(String name, String value) {
        members.add(quote(name) + ":" + quote(value));
        return this;
    }

    JsonObject add(String name, long value) {
        members.add(quote(name) + ":" + value);
        return this;
    }

    @Override
    public String toString() {
        return members.toString();
    }

    /** Error messages quote what the client sent, so anything may need escaping. */
    private static String quote(String text) {
        StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
