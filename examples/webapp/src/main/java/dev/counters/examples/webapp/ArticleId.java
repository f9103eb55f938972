package dev.counters.examples.webapp;

import java.util.regex.Pattern;

/**
 * An article's id, as it appears in URLs and in counter names. It is checked here, in the API's own terms, rather
 * than left to the library's counter-name check, whose message would speak of counter names the client never sent.
 */
record ArticleId(String value) {

    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    ArticleId {
        if (value == null || !VALID.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    "Article id '" + value + "' must be 1 to 64 ASCII letters, digits, '_' or '-'");
        }
    }

    /** Sharded in application.yml: page views are the hottest writes. */
    String viewsCounter() {
        return "page-views." + value;
    }

    /** Buffered in application.yml: a like costs no database write in the request. */
    String likesCounter() {
        return "likes." + value;
    }

    /** A membership counter in application.yml: the visitors who like the article, and how many they are. */
    String likedByCounter() {
        return "liked-by." + value;
    }
}
