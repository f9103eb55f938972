package dev.counters.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Turns a script's array reply, as either client decodes it, into strings. */
final class Replies {

    private Replies() {}

    static List<@Nullable String> strings(@Nullable Object reply) {
        if (reply == null) {
            return List.of();
        }
        if (!(reply instanceof List<?> items)) {
            throw new IllegalStateException("A script replied " + reply + " where an array was expected");
        }
        List<@Nullable String> strings = new ArrayList<>(items.size());
        for (Object item : items) {
            strings.add(string(item));
        }
        return strings;
    }

    private static @Nullable String string(@Nullable Object item) {
        if (item == null) {
            return null;
        }
        if (item instanceof byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        return item.toString(); // String (Lettuce's string codec) or Long (an integer reply)
    }
}
